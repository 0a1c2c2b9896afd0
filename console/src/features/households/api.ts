import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type RequestBody } from '../../shared';

/** The households area's queries over the typed client (modules-contract §8). */
export const householdKeys = {
  list: (q: string, page: number) => ['households', 'list', q, page] as const,
  household: (id: number) => ['households', 'household', id] as const,
};

export const ROLES = ['Head', 'Spouse', 'Child', 'Other'] as const;
export type Role = (typeof ROLES)[number];

export function useHouseholds(q: string, page: number) {
  return useQuery({
    queryKey: householdKeys.list(q, page),
    queryFn: ({ signal }) => unwrap(api.GET('/api/crm/households', { params: { query: { q: q || undefined, page, limit: 25 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useHousehold(id: number) {
  return useQuery({ queryKey: householdKeys.household(id), queryFn: () => unwrap(api.GET('/api/crm/households/{id}', { params: { path: { id } } })) });
}

export type Household = NonNullable<ReturnType<typeof useHousehold>['data']>;
export type HouseholdBody = RequestBody<'/api/crm/households', 'post'>;
export type HouseholdChanges = RequestBody<'/api/crm/households/{id}', 'put'>;

/** One person by id (a family started from a person's page begins with them). */
export function useContact(id: number | undefined) {
  return useQuery({
    queryKey: ['households', 'contact', id], enabled: id !== undefined,
    queryFn: () => unwrap(api.GET('/api/crm/contacts/{id}', { params: { path: { id: id! } } })),
  });
}

/** People to add to a household, by name, email or phone digits (with the household each is in). */
export function usePersonChoices(q: string) {
  return useQuery({
    queryKey: ['households', 'person-choices', q], enabled: q.trim().length > 0,
    queryFn: () => unwrap(api.GET('/api/crm/contacts', { params: { query: { q: q.trim(), category: 'Person', limit: 15 } } })),
    placeholderData: keepPreviousData,
  });
}

/**
 * The household's writes; each refreshes the households and the people (a person's page shows
 * their household).
 */
export function useHouseholdActions(id: number) {
  const client = useQueryClient();
  const onSuccess = async (saved?: Household | void) => {
    if (saved) client.setQueryData(householdKeys.household(id), saved);
    await Promise.all([client.invalidateQueries({ queryKey: ['households'] }), client.invalidateQueries({ queryKey: ['people'] })]);
  };
  const path = { id };
  return {
    update: useMutation({ onSuccess, mutationFn: (body: HouseholdChanges) => unwrap(api.PUT('/api/crm/households/{id}', { params: { path }, body })) }),
    add: useMutation({
      onSuccess,
      mutationFn: (body: { contactId: number; role: Role }) => unwrap(api.POST('/api/crm/households/{id}/members', { params: { path }, body })),
    }),
    setRole: useMutation({
      onSuccess,
      mutationFn: ({ contactId, role }: { contactId: number; role: Role }) =>
        unwrap(api.PUT('/api/crm/households/{id}/members/{contactId}', { params: { path: { id, contactId } }, body: { role } })),
    }),
    remove: useMutation({
      onSuccess: () => onSuccess(),
      mutationFn: async (contactId: number) => {
        await unwrap(api.DELETE('/api/crm/households/{id}/members/{contactId}', { params: { path: { id, contactId } } }));
      },
    }),
    destroy: useMutation({
      onSuccess: () => {
        client.removeQueries({ queryKey: householdKeys.household(id) });
        return onSuccess();
      },
      mutationFn: async () => {
        await unwrap(api.DELETE('/api/crm/households/{id}', { params: { path } }));
      },
    }),
  };
}

export function useCreateHousehold() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: HouseholdBody) => unwrap(api.POST('/api/crm/households', { body })),
    onSuccess: async (saved) => {
      client.setQueryData(householdKeys.household(saved.id), saved);
      await Promise.all([client.invalidateQueries({ queryKey: ['households', 'list'] }), client.invalidateQueries({ queryKey: ['people'] })]);
    },
  });
}

/** An address as one line ("12 Riverside Drive, Nairobi, KE"), or '' without one. */
export function addressLine(address: Household['address']): string {
  return address ? [address.street, address.city, address.country].filter(Boolean).join(', ') : '';
}
