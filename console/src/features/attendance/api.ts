import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type RequestBody } from '../../shared';

/** The attendance area's queries over the typed client (modules-contract §1). */
export const attendanceKeys = {
  all: ['attendance'] as const,
  session: (id: number) => ['attendance', 'session', id] as const,
};

/** Today (YYYY-MM-DD) in the church's time zone: "this Sunday" opens today's session there. */
export function todayIn(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

/** A YYYY-MM-DD date moved by a number of days. */
export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function useServices() {
  return useQuery({
    queryKey: ['attendance', 'services'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/services', { params: { query: { isActive: true, limit: 100 } }, signal })),
  });
}

export type Service = NonNullable<ReturnType<typeof useServices>['data']>['data'][number];

export function useService(id: number | undefined) {
  return useQuery({
    queryKey: ['attendance', 'service', id], enabled: id !== undefined,
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/services/{id}', { params: { path: { id: id! } }, signal })),
  });
}

export interface SessionFilter {
  groupId?: number;
  serviceId?: number;
  from?: string;
  to?: string;
  page?: number;
  limit?: number;
}

export function useSessions(filter: SessionFilter) {
  return useQuery({
    queryKey: ['attendance', 'sessions', filter],
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/sessions', { params: { query: { limit: 25, ...filter } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export type SessionRow = NonNullable<ReturnType<typeof useSessions>['data']>['data'][number];

export function useSession(id: number) {
  return useQuery({
    queryKey: attendanceKeys.session(id),
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/sessions/{id}', { params: { path: { id } }, signal })),
  });
}

export type SessionDetail = NonNullable<ReturnType<typeof useSession>['data']>;
export type AttendanceRecord = SessionDetail['records'][number];

/** Active members of a group, a page at a time (100, the most the API gives), for the roster. */
export function useMembers(groupId: number | undefined, page: number, enabled: boolean) {
  return useQuery({
    queryKey: ['attendance', 'members', groupId, page], enabled: enabled && groupId !== undefined,
    queryFn: ({ signal }) => unwrap(api.GET('/api/groups/membership', { params: { query: { groupId: groupId!, isActive: true, page, limit: 100 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export type SessionSource = { serviceId: number } | { groupId: number };

/**
 * Opens the session of a service or group on a date: creates it (with the API's warnings), or, when
 * it exists already (409 naming it), answers that one. One request either way.
 */
export function useOpenSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: SessionSource & { date: string }): Promise<{ id: number; warnings: string[]; created: boolean }> => {
      try {
        const created = await unwrap(api.POST('/api/attendance/sessions', { body }));
        return { id: created.id, warnings: created.warnings, created: true };
      } catch (error) {
        const existing = error instanceof ApiError && error.statusCode === 409 ? /Session (\d+) already exists/.exec(error.message)?.[1] : undefined;
        if (existing) return { id: Number(existing), warnings: [], created: false };
        throw error;
      }
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['attendance', 'sessions'] }),
  });
}

export type GuestBody = RequestBody<'/api/attendance/sessions/{id}/guests', 'post'>;

export function useSessionActions(id: number) {
  const client = useQueryClient();
  const path = { id };
  const refresh = () => client.invalidateQueries({ queryKey: attendanceKeys.all });
  return {
    guest: useMutation({ onSuccess: refresh, mutationFn: (body: GuestBody) => unwrap(api.POST('/api/attendance/sessions/{id}/guests', { params: { path }, body })) }),
    headcounts: useMutation({
      onSuccess: refresh,
      mutationFn: (counts: { type: string; count: number }[]) => unwrap(api.PUT('/api/attendance/sessions/{id}/headcounts', { params: { path }, body: { counts } })),
    }),
  };
}

/**
 * Writes the roster's pending taps: everyone newly present in one request (the bulk form), and one
 * DELETE for each person unmarked. Answers the records created and the contacts removed.
 */
export async function saveMarks(sessionId: number, add: number[], remove: number[]): Promise<{ created: AttendanceRecord[]; removed: number[] }> {
  const path = { id: sessionId };
  const [created] = await Promise.all([
    add.length ? unwrap(api.POST('/api/attendance/sessions/{id}/records', { params: { path }, body: { contactIds: add } })).then((r) => r.created) : Promise.resolve([]),
    ...remove.map((contactId) => unwrap(api.DELETE('/api/attendance/sessions/{id}/records/{contactId}', { params: { path: { id: sessionId, contactId } } })).catch((error: unknown) => {
      if (error instanceof ApiError && error.statusCode === 404) return undefined; // already gone
      throw error;
    })),
  ]);
  return { created, removed: remove };
}

export type SummaryQuery = { groupId?: number; from?: string; to?: string; interval: 'week' | 'month' };

export function useSummary(query: SummaryQuery) {
  return useQuery({
    queryKey: ['attendance', 'summary', query],
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/summary', { params: { query }, signal })),
    placeholderData: keepPreviousData,
  });
}

export type Summary = NonNullable<ReturnType<typeof useSummary>['data']>;

export function useAbsentees(query: { groupId?: number; missed: number; page: number }) {
  return useQuery({
    queryKey: ['attendance', 'absentees', query],
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/absentees', { params: { query: { ...query, limit: 25 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export type Absentee = NonNullable<ReturnType<typeof useAbsentees>['data']>['data'][number];

export function useCreateTask() {
  return useMutation({ mutationFn: (body: RequestBody<'/api/tasks', 'post'>) => unwrap(api.POST('/api/tasks', { body })) });
}
