import { useMutation, useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../shared';

/** The kiosk's requests: today's sessions, the family lookup, check-in, labels and check-out (checkin:write alone). */
export function useTodaysSessions() {
  return useQuery({
    queryKey: ['kiosk', 'sessions'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/checkins/sessions', { signal })),
    refetchOnWindowFocus: false,
  });
}

export type KioskSession = NonNullable<ReturnType<typeof useTodaysSessions>['data']>['data'][number];

export function useFamilies(q: string) {
  return useQuery({
    queryKey: ['kiosk', 'lookup', q],
    enabled: q.length > 0,
    queryFn: ({ signal }) => unwrap(api.GET('/api/attendance/checkins/lookup', { params: { query: { q } }, signal })),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}

export type Family = NonNullable<ReturnType<typeof useFamilies>['data']>['data'][number];

export function useCheckIn() {
  return useMutation({
    mutationFn: (body: { sessionId: number; contactIds: number[]; rooms?: { contactId: number; roomGroupId: number | null }[] }) =>
      unwrap(api.POST('/api/attendance/checkins', { body })),
  });
}

export type CheckedIn = Awaited<ReturnType<ReturnType<typeof useCheckIn>['mutateAsync']>>;

/** The labels PDF of the check-ins, as a blob URL the kiosk opens or prints. */
export async function labelsPdf(ids: readonly number[]): Promise<string> {
  const { data, response } = await api.GET('/api/attendance/checkins/labels', { params: { query: { ids: ids.join(',') } }, parseAs: 'blob' });
  if (!response.ok || !data) throw new ApiError(response.status, 'The labels could not be made. Try "Print labels" again.');
  return URL.createObjectURL(new Blob([data], { type: 'application/pdf' }));
}

export function useCheckOut() {
  return useMutation({
    mutationFn: (body: { sessionId: number; securityCode: string }) => unwrap(api.POST('/api/attendance/checkins/checkout', { body })),
  });
}
