import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../shared';

/** Most groups a tree shows before it asks for a search instead (10 pages of the combo list). */
const MAX_PAGES = 10;

/**
 * The groups the user can see (id, name, parent), to find the tops of the tree: a group whose
 * parent is not visible is a top (a leader's tree starts at the groups they lead).
 */
export function useVisibleGroups() {
  return useQuery({
    queryKey: ['groups', 'visible'],
    queryFn: async () => {
      const all = [];
      for (let page = 1; page <= MAX_PAGES; page++) {
        const chunk = await unwrap(api.GET('/api/groups/combo', { params: { query: { page, limit: 100 } } }));
        all.push(...chunk.data);
        if (all.length >= chunk.total || chunk.data.length === 0) return { groups: all, complete: true };
      }
      return { groups: all, complete: false };
    },
  });
}

/** One group with its children, members and member count (loaded when the tree shows it). */
export function useGroup(id: number, enabled = true) {
  return useQuery({ queryKey: ['groups', 'group', id], enabled, queryFn: () => unwrap(api.GET('/api/groups/{id}', { params: { path: { id } } })) });
}

export type GroupDetail = NonNullable<ReturnType<typeof useGroup>['data']>;

/** People to add to a group, by name, email or phone digits. */
export function usePersonChoices(q: string, enabled: boolean) {
  return useQuery({
    queryKey: ['groups', 'person-choices', q], enabled: enabled && q.trim().length > 0,
    queryFn: () => unwrap(api.GET('/api/crm/contacts', { params: { query: { q: q.trim(), category: 'Person', limit: 15 } } })),
  });
}

export type Role = 'Leader' | 'Assistant' | 'Member';

/** Membership writes of a group's page; each refreshes the group. */
export function useMembershipActions(groupId: number) {
  const client = useQueryClient();
  const onSuccess = () => client.invalidateQueries({ queryKey: ['groups'] });
  return {
    add: useMutation({ onSuccess, mutationFn: (contactId: number) => unwrap(api.POST('/api/groups/membership', { body: { groupId, contactId, role: 'Member' } })) }),
    setRole: useMutation({
      onSuccess,
      mutationFn: ({ id, role }: { id: number; role: Role }) => unwrap(api.PUT('/api/groups/membership/{id}', { params: { path: { id } }, body: { role } })),
    }),
    remove: useMutation({ onSuccess, mutationFn: (id: number) => unwrap(api.DELETE('/api/groups/membership/{id}', { params: { path: { id } } })) }),
  };
}

/** Membership requests of a group (pending and handled), for the leaders of its subtree. */
export function useMembershipRequests(groupId: number, enabled: boolean) {
  return useQuery({
    queryKey: ['groups', 'requests', groupId], enabled,
    queryFn: () => unwrap(api.GET('/api/groups/membership-request', { params: { query: { groupId, limit: 100 } } })),
  });
}

export type MembershipRequest = NonNullable<ReturnType<typeof useMembershipRequests>['data']>['data'][number];

/** Approves (the person joins as a Member) or rejects a request; both refresh the group. */
export function useHandleRequest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision }: { id: number; decision: 'approve' | 'reject' }) =>
      decision === 'approve'
        ? unwrap(api.PUT('/api/groups/membership-request/{id}/approve', { params: { path: { id } } }))
        : unwrap(api.PUT('/api/groups/membership-request/{id}/reject', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['groups'] }),
  });
}

/** The group's attendance sessions, newest first (attendance:read). */
export function useGroupSessions(groupId: number, page: number, enabled: boolean) {
  return useQuery({
    queryKey: ['groups', 'sessions', groupId, page], enabled,
    queryFn: () => unwrap(api.GET('/api/attendance/sessions', { params: { query: { groupId, page, limit: 10 } } })),
  });
}
