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
