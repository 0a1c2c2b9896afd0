import { useQuery } from '@tanstack/react-query';
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
