import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, useSession, type RequestBody } from '../../shared';

/** The messages area's queries over the typed client (modules-contract §6). */

export function useInbox(unread: boolean, page: number) {
  return useQuery({
    queryKey: ['messages', 'inbox', unread, page],
    queryFn: ({ signal }) => unwrap(api.GET('/api/notifications', { params: { query: { ...(unread ? { unread: true } : {}), page, limit: 20 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export type InboxItem = NonNullable<ReturnType<typeof useInbox>['data']>['data'][number];

export function useInboxActions() {
  const client = useQueryClient();
  const onSuccess = () => client.invalidateQueries({ queryKey: ['messages', 'inbox'] });
  return {
    read: useMutation({ onSuccess, mutationFn: (id: number) => unwrap(api.PUT('/api/notifications/{id}/read', { params: { path: { id } } })) }),
    readAll: useMutation({ onSuccess, mutationFn: () => unwrap(api.PUT('/api/notifications/read-all')) }),
  };
}

export function usePreferences() {
  return useQuery({ queryKey: ['messages', 'preferences'], queryFn: ({ signal }) => unwrap(api.GET('/api/notifications/preferences', { signal })) });
}

export type Preferences = NonNullable<ReturnType<typeof usePreferences>['data']>;
export type PreferencesBody = RequestBody<'/api/notifications/preferences', 'put'>;

export function useSavePreferences() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: PreferencesBody) => unwrap(api.PUT('/api/notifications/preferences', { body })),
    onSuccess: (saved) => client.setQueryData(['messages', 'preferences'], saved),
  });
}

// Compose (notifications:send)

export type MessageBody = RequestBody<'/api/notifications/messages', 'post'>;

export function usePreview() {
  return useMutation({ mutationFn: (body: MessageBody) => unwrap(api.POST('/api/notifications/messages/preview', { body })) });
}

export type Preview = NonNullable<ReturnType<typeof usePreview>['data']>;

export function useSend() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: MessageBody) => unwrap(api.POST('/api/notifications/messages', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['messages', 'sent'] }),
  });
}

export function useSentMessages(page: number) {
  return useQuery({
    queryKey: ['messages', 'sent', page],
    queryFn: ({ signal }) => unwrap(api.GET('/api/notifications/messages', { params: { query: { page, limit: 20 } }, signal })),
    placeholderData: keepPreviousData,
    // While something is on its way, look again every few seconds.
    refetchInterval: (q) => (q.state.data?.data.some((m) => m.status === 'Queued' || m.status === 'Sending') ? 3000 : false),
  });
}

export type SentMessage = NonNullable<ReturnType<typeof useSentMessages>['data']>['data'][number];

export function useListChoices() {
  const { can } = useSession();
  return useQuery({
    queryKey: ['messages', 'lists'],
    enabled: can('contacts:read'),
    queryFn: ({ signal }) => unwrap(api.GET('/api/search/lists', { params: { query: { limit: 100 } }, signal })),
    staleTime: 60_000,
  });
}

export function usePeopleChoices(q: string) {
  const { can } = useSession();
  return useQuery({
    queryKey: ['messages', 'people', q],
    enabled: can('contacts:read') && q.trim().length > 0,
    queryFn: ({ signal }) => unwrap(api.GET('/api/crm/contacts', { params: { query: { q: q.trim(), limit: 15 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useMessageTemplates() {
  return useQuery({
    queryKey: ['messages', 'templates'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/notifications/templates', { params: { query: { limit: 100 } }, signal })),
    staleTime: 60_000,
  });
}
