import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type RequestBody } from '../../shared';

/** The admin area's queries over the typed client (api-contract §4, modules-contract §6–7, contacts import). */

export type UserBody = RequestBody<'/api/users', 'post'>;
export type RoleBody = RequestBody<'/api/roles', 'post'>;
export type TenantChanges = RequestBody<'/api/tenants/current', 'put'>;
export type WebhookBody = RequestBody<'/api/notifications/webhooks', 'post'>;

export interface UserFilter {
  q: string;
  status?: 'Active' | 'Disabled';
  page: number;
}

export function useUsers({ q, status, page }: UserFilter) {
  return useQuery({
    queryKey: ['admin', 'users', q, status, page],
    queryFn: ({ signal }) => unwrap(api.GET('/api/users', { params: { query: { q: q || undefined, status, page, limit: 25 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export type UserItem = NonNullable<ReturnType<typeof useUsers>['data']>['data'][number];

/** Every user (for the audit log's "who" filter): at most 100, ordered by username. */
export function useAllUsers(enabled: boolean) {
  return useQuery({ queryKey: ['admin', 'users', 'all'], enabled, queryFn: () => unwrap(api.GET('/api/users', { params: { query: { limit: 100 } } })) });
}

export function useUserActions() {
  const client = useQueryClient();
  const onSuccess = () => client.invalidateQueries({ queryKey: ['admin', 'users'] });
  return {
    invite: useMutation({ onSuccess, mutationFn: (body: UserBody) => unwrap(api.POST('/api/users', { body: { ...body, invite: true } })) }),
    resend: useMutation({ mutationFn: (id: number) => unwrap(api.POST('/api/users/{id}/invitation', { params: { path: { id } } })) }),
    setStatus: useMutation({
      onSuccess,
      mutationFn: ({ id, status }: { id: number; status: 'Active' | 'Disabled' }) => unwrap(api.PUT('/api/users/{id}', { params: { path: { id } }, body: { status } })),
    }),
  };
}

export function useRoles(enabled = true) {
  return useQuery({ queryKey: ['admin', 'roles'], enabled, queryFn: () => unwrap(api.GET('/api/roles', { params: { query: { limit: 100 } } })) });
}

export type Role = NonNullable<ReturnType<typeof useRoles>['data']>['data'][number];

export function usePermissions() {
  return useQuery({ queryKey: ['admin', 'permissions'], staleTime: Infinity, queryFn: () => unwrap(api.GET('/api/roles/permissions', { params: { query: { limit: 100 } } })) });
}

export function useRoleActions() {
  const client = useQueryClient();
  const onSuccess = () => client.invalidateQueries({ queryKey: ['admin', 'roles'] });
  return {
    create: useMutation({ onSuccess, mutationFn: (body: RoleBody) => unwrap(api.POST('/api/roles', { body })) }),
    setPermissions: useMutation({
      onSuccess: (saved: Role) => {
        client.setQueryData(['admin', 'roles'], (old: { data: Role[] } | undefined) => old && { ...old, data: old.data.map((r) => (r.id === saved.id ? saved : r)) });
        return onSuccess();
      },
      mutationFn: ({ id, permissions }: { id: number; permissions: string[] }) =>
        unwrap(api.PUT('/api/roles/{id}', { params: { path: { id } }, body: { permissions: permissions as NonNullable<RoleBody['permissions']> } })),
    }),
  };
}

export function useTenant() {
  return useQuery({ queryKey: ['admin', 'tenant'], queryFn: () => unwrap(api.GET('/api/tenants/current')) });
}

export function useSaveTenant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: TenantChanges) => unwrap(api.PUT('/api/tenants/current', { body })),
    onSuccess: (saved) => client.setQueryData(['admin', 'tenant'], saved),
  });
}

export function useWebhooks() {
  return useQuery({ queryKey: ['admin', 'webhooks'], queryFn: () => unwrap(api.GET('/api/notifications/webhooks', { params: { query: { limit: 100 } } })) });
}

export type Webhook = NonNullable<ReturnType<typeof useWebhooks>['data']>['data'][number];

export function useWebhookEvents() {
  return useQuery({ queryKey: ['admin', 'webhook-events'], staleTime: Infinity, queryFn: () => unwrap(api.GET('/api/notifications/webhooks/events', {})) });
}

export function useWebhook(id: number) {
  return useQuery({ queryKey: ['admin', 'webhooks', id], queryFn: () => unwrap(api.GET('/api/notifications/webhooks/{id}', { params: { path: { id } } })) });
}

export function useDeliveries(id: number, page: number) {
  return useQuery({
    queryKey: ['admin', 'webhooks', id, 'deliveries', page],
    queryFn: ({ signal }) => unwrap(api.GET('/api/notifications/webhooks/{id}/deliveries', { params: { path: { id }, query: { page, limit: 20 } }, signal })),
    placeholderData: keepPreviousData,
    // A delivery still pending is being sent by the worker: look again shortly.
    refetchInterval: (query) => (query.state.data?.data.some((d) => d.status === 'Pending') ? 1500 : false),
  });
}

export function useWebhookActions(id?: number) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['admin', 'webhooks'] });
  return {
    create: useMutation({ onSuccess: refresh, mutationFn: (body: WebhookBody) => unwrap(api.POST('/api/notifications/webhooks', { body })) }),
    update: useMutation({
      onSuccess: refresh,
      mutationFn: (body: RequestBody<'/api/notifications/webhooks/{id}', 'put'>) => unwrap(api.PUT('/api/notifications/webhooks/{id}', { params: { path: { id: id! } }, body })),
    }),
    ping: useMutation({ onSuccess: refresh, mutationFn: () => unwrap(api.POST('/api/notifications/webhooks/{id}/test', { params: { path: { id: id! } } })) }),
    redeliver: useMutation({
      onSuccess: refresh,
      mutationFn: (deliveryId: number) => unwrap(api.POST('/api/notifications/webhooks/deliveries/{id}/redeliver', { params: { path: { id: deliveryId } } })),
    }),
    remove: useMutation({
      onSuccess: () => client.removeQueries({ queryKey: ['admin', 'webhooks'] }),
      mutationFn: async () => {
        await unwrap(api.DELETE('/api/notifications/webhooks/{id}', { params: { path: { id: id! } } }));
      },
    }),
  };
}

export interface AuditQuery {
  page: number;
  limit?: number;
  entityType?: string;
  actorUserId?: number;
  /** A change type (contact.updated …). */
  type?: string;
  from?: string;
  to?: string;
}

export function useAudit(query: AuditQuery) {
  return useQuery({
    queryKey: ['admin', 'audit', query],
    queryFn: ({ signal }) => unwrap(api.GET('/api/audit', { params: { query: query as never }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useImportFormats() {
  return useQuery({ queryKey: ['admin', 'import-formats'], staleTime: Infinity, queryFn: () => unwrap(api.GET('/api/crm/contacts/import/formats')) });
}

export type ImportFormats = NonNullable<ReturnType<typeof useImportFormats>['data']>;

/** The import's answer: the counts, every row's outcome and the households made. */
export interface ImportResult {
  total: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  rows: { row: number; outcome: 'created' | 'updated' | 'unchanged' | 'error'; name: string; message?: string; contactId?: number }[];
  households: { id: number; name: string; created: boolean }[];
}

/**
 * POSTs a CSV to the contacts import (text/csv, so the server recognises the export's format by
 * its header), with the wizard's `column=field` mapping changes.
 */
export async function postImport(csv: string, options: { dryRun: boolean; map: string[] }): Promise<ImportResult> {
  const query = new URLSearchParams();
  if (options.dryRun) query.set('dryRun', 'true');
  for (const m of options.map) query.append('map', m);
  const answer = await api.POST('/api/crm/contacts/import', {
    params: { query: {} },
    body: csv as never,
    querySerializer: () => query.toString(),
    bodySerializer: (body: unknown) => body as string,
    headers: { 'content-type': 'text/csv' },
  });
  if (!answer.response.ok) {
    const message = (answer.error as { message?: unknown } | undefined)?.message;
    throw new ApiError(answer.response.status, typeof message === 'string' ? message : `The server answered ${answer.response.status}`);
  }
  return answer.data as unknown as ImportResult;
}
