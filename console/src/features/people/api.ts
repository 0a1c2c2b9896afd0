import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type RequestBody } from '../../shared';

/** The people area's queries over the typed client. */
export const peopleKeys = {
  list: (q: string, page: number) => ['people', 'list', q, page] as const,
  person: (id: number) => ['people', 'person', id] as const,
  timeline: (id: number) => ['people', 'timeline', id] as const,
};

export function usePeople(q: string, page: number) {
  return useQuery({
    queryKey: peopleKeys.list(q, page),
    queryFn: ({ signal }) => unwrap(api.GET('/api/crm/contacts', { params: { query: { q: q || undefined, page, limit: 25, category: 'Person' } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function usePerson(id: number) {
  return useQuery({ queryKey: peopleKeys.person(id), queryFn: () => unwrap(api.GET('/api/crm/contacts/{id}', { params: { path: { id } } })) });
}

export type Person = NonNullable<ReturnType<typeof usePerson>['data']>;
export type PersonBody = RequestBody<'/api/crm/contacts/{id}', 'put'>;

export function useTimeline(id: number) {
  return useQuery({ queryKey: peopleKeys.timeline(id), queryFn: () => unwrap(api.GET('/api/crm/contacts/{id}/timeline', { params: { path: { id }, query: { limit: 20 } } })) });
}

export function useTasks(contactId: number, enabled: boolean) {
  return useQuery({ queryKey: ['people', 'tasks', contactId], enabled, queryFn: () => unwrap(api.GET('/api/tasks', { params: { query: { contactId, limit: 10 } } })) });
}

export function useGiving(contactId: number, enabled: boolean) {
  return useQuery({
    queryKey: ['people', 'giving', contactId], enabled,
    queryFn: () => unwrap(api.GET('/api/finance/contributions', { params: { query: { contactId, limit: 10 } } })),
  });
}

export function useSavePerson(id: number | undefined) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: PersonBody) =>
      id === undefined
        ? unwrap(api.POST('/api/crm/contacts', { body: { category: 'Person', ...body } as never }))
        : unwrap(api.PUT('/api/crm/contacts/{id}', { params: { path: { id } }, body })),
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: ['people'] });
      client.setQueryData(peopleKeys.person(saved.id), saved);
    },
  });
}

/** Groups the user may add people to, by name. */
export function useGroupChoices(q: string, enabled: boolean) {
  return useQuery({
    queryKey: ['people', 'group-choices', q], enabled,
    queryFn: () => unwrap(api.GET('/api/groups', { params: { query: { q: q || undefined, limit: 20 } } })),
    placeholderData: keepPreviousData,
  });
}

export function useAddToGroup(contactId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (groupId: number) => unwrap(api.POST('/api/groups/membership', { body: { contactId, groupId, role: 'Member' } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['people'] }),
  });
}

/** Households to put a person in, by the household's or a member's name. */
export function useHouseholdChoices(q: string, enabled: boolean) {
  return useQuery({
    queryKey: ['people', 'household-choices', q], enabled,
    queryFn: () => unwrap(api.GET('/api/crm/households', { params: { query: { q: q || undefined, limit: 20 } } })),
    placeholderData: keepPreviousData,
  });
}

export type HouseholdRole = 'Head' | 'Spouse' | 'Child' | 'Other';

export function useJoinHousehold(contactId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ householdId, role }: { householdId: number; role: HouseholdRole }) =>
      unwrap(api.POST('/api/crm/households/{id}/members', { params: { path: { id: householdId } }, body: { contactId, role } })),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['people'] }), client.invalidateQueries({ queryKey: ['households'] })]),
  });
}

/** Everything held about the person, saved by the browser as contact-<id>.json. */
export function useExportPerson(id: number) {
  return useMutation({
    mutationFn: async () => {
      const data = await unwrap(api.GET('/api/crm/contacts/{id}/export', { params: { path: { id } } }));
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `contact-${id}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  });
}

export function useErasePerson(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/api/crm/contacts/{id}/erase', { params: { path: { id } }, body: { confirm: true } })),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['people'] }), client.invalidateQueries({ queryKey: ['households'] })]),
  });
}

export function useDuplicates(page: number) {
  return useQuery({
    queryKey: ['people', 'duplicates', page],
    queryFn: () => unwrap(api.GET('/api/crm/duplicates', { params: { query: { page, limit: 20 } } })),
    placeholderData: keepPreviousData,
  });
}

export type DuplicatePair = NonNullable<ReturnType<typeof useDuplicates>['data']>['data'][number];

/** Merges `sourceId` into `keepId` (the source is deleted). */
export function useMerge() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ keepId, sourceId }: { keepId: number; sourceId: number }) =>
      unwrap(api.POST('/api/crm/contacts/{id}/merge', { params: { path: { id: keepId } }, body: { sourceIds: [sourceId] } })),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['people'] }), client.invalidateQueries({ queryKey: ['households'] })]),
  });
}
