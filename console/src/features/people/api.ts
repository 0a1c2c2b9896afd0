import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type RequestBody } from '../../shared';

/** The people area's queries over the typed client. */
export const peopleKeys = {
  list: (q: string, page: number) => ['people', 'list', q, page] as const,
  person: (id: number) => ['people', 'person', id] as const,
  timeline: (id: number) => ['people', 'timeline', id] as const,
};

export type ContactStatus = 'Active' | 'Inactive' | 'MovedAway' | 'TransferredToAnotherChurch' | 'Deceased';

export function usePeople(q: string, page: number, status: ContactStatus | undefined, enabled = true) {
  return useQuery({
    queryKey: [...peopleKeys.list(q, page), status ?? ''],
    enabled,
    queryFn: ({ signal }) => unwrap(api.GET('/api/crm/contacts', { params: { query: { q: q || undefined, page, limit: 25, category: 'Person', status } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export type Criteria = RequestBody<'/api/search/lists', 'post'>['criteria'];
export type Condition = Criteria['conditions'][number];

/** People matching the criteria of the list's filters (POST /api/search/contacts). */
export function useFilteredPeople(criteria: Criteria | undefined, page: number) {
  return useQuery({
    queryKey: ['people', 'filtered', criteria, page],
    enabled: criteria !== undefined,
    queryFn: ({ signal }) => unwrap(api.POST('/api/search/contacts', { body: { ...criteria!, page, limit: 25 }, signal })),
    placeholderData: keepPreviousData,
  });
}

/** The user's saved lists and the shared ones, by name. */
export function useSavedLists() {
  return useQuery({ queryKey: ['people', 'lists'], queryFn: () => unwrap(api.GET('/api/search/lists', { params: { query: { limit: 100 } } })) });
}

export type SavedList = NonNullable<ReturnType<typeof useSavedLists>['data']>['data'][number];

/** A saved list's people now (evaluated on every read). */
export function useListContacts(id: number | undefined, page: number) {
  return useQuery({
    queryKey: ['people', 'list-contacts', id, page],
    enabled: id !== undefined,
    staleTime: 0,
    queryFn: ({ signal }) => unwrap(api.GET('/api/search/lists/{id}/contacts', { params: { path: { id: id! }, query: { page, limit: 25 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useSaveList() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'/api/search/lists', 'post'>) => unwrap(api.POST('/api/search/lists', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['people', 'lists'] }),
  });
}

export function useDeleteList() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/search/lists/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['people', 'lists'] }),
  });
}

/** People to add to a merge, by name, email or phone digits. */
export function usePersonSearch(q: string) {
  return useQuery({
    queryKey: ['people', 'person-search', q], enabled: q.trim().length > 0,
    queryFn: () => unwrap(api.GET('/api/crm/contacts', { params: { query: { q: q.trim(), category: 'Person', limit: 15 } } })),
    placeholderData: keepPreviousData,
  });
}

export type ContactItem = NonNullable<ReturnType<typeof usePersonSearch>['data']>['data'][number];

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

/** Merges the sources (1–10) into `keepId`; the sources are deleted. */
export function useMerge() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ keepId, sourceIds }: { keepId: number; sourceIds: number[] }) =>
      unwrap(api.POST('/api/crm/contacts/{id}/merge', { params: { path: { id: keepId } }, body: { sourceIds } })),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['people'] }), client.invalidateQueries({ queryKey: ['households'] })]),
  });
}
