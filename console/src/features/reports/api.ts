import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, useSession, type RequestBody } from '../../shared';

/** The reports area's queries over the typed client (modules-contract §4). */

export function useCatalog() {
  return useQuery({ queryKey: ['reports', 'catalog'], queryFn: ({ signal }) => unwrap(api.GET('/api/reports', { signal })), staleTime: 5 * 60_000 });
}

export type CatalogItem = NonNullable<ReturnType<typeof useCatalog>['data']>['data'][number];
export type ReportParameter = CatalogItem['parameters'][number];

/** The query of a run: every parameter as the API's query string wants it (strings). */
export type ReportQuery = Record<string, string>;

export function useReport(key: string, query: ReportQuery | undefined) {
  return useQuery({
    queryKey: ['reports', 'run', key, query],
    enabled: query !== undefined,
    queryFn: ({ signal }) => unwrap(api.GET('/api/reports/{key}', { params: { path: { key }, query: query! }, signal })),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export type ReportOutput = NonNullable<ReturnType<typeof useReport>['data']>;

/** The report's CSV as the API names it (Content-Disposition: the report, its scope and window). */
export async function downloadCsv(key: string, query: ReportQuery): Promise<string> {
  const { data, response, error } = await api.GET('/api/reports/{key}', { params: { path: { key }, query: { ...query, format: 'csv' } }, parseAs: 'blob' });
  if (!response.ok || !data) {
    const message = (error as { message?: string } | undefined)?.message;
    throw new ApiError(response.status, message ?? 'The CSV could not be made. Try again.');
  }
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `${key}.csv`;
  const url = URL.createObjectURL(data as Blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

/** One group's name, for a report opened from an address naming its group (groupId=): the picker shows it by name. */
export function useGroupName(id: number | undefined) {
  const { can } = useSession();
  return useQuery({
    queryKey: ['reports', 'group-name', id],
    enabled: id !== undefined && can('groups:read'),
    queryFn: ({ signal }) => unwrap(api.GET('/api/groups/{id}', { params: { path: { id: id! } }, signal })).then((g) => ({ id: g.id, name: g.name })),
    staleTime: 60_000,
  });
}

export function useFundChoices(enabled: boolean) {
  return useQuery({
    queryKey: ['reports', 'funds'],
    enabled,
    queryFn: ({ signal }) => unwrap(api.GET('/api/finance/funds', { params: { query: { limit: 100 } }, signal })),
    staleTime: 60_000,
  });
}

// Leaders' report forms

export function useTemplates() {
  return useQuery({
    queryKey: ['reports', 'templates'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/reports/templates', { params: { query: { isActive: true, limit: 100 } }, signal })),
  });
}

export function useTemplate(id: number) {
  return useQuery({
    queryKey: ['reports', 'template', id],
    queryFn: ({ signal }) => unwrap(api.GET('/api/reports/templates/{id}', { params: { path: { id } }, signal })),
  });
}

export type Template = NonNullable<ReturnType<typeof useTemplate>['data']>;
export type TemplateField = Template['fields'][number];
export type SubmissionBody = RequestBody<'/api/reports/templates/{id}/submissions', 'post'>;

export function useSubmit(id: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: SubmissionBody) => unwrap(api.POST('/api/reports/templates/{id}/submissions', { params: { path: { id } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['reports', 'rollup', id] }),
  });
}

export function useRollup(id: number, query: { groupId?: number; from?: string; to?: string }) {
  return useQuery({
    queryKey: ['reports', 'rollup', id, query],
    queryFn: ({ signal }) => unwrap(api.GET('/api/reports/templates/{id}/rollup', { params: { path: { id }, query }, signal })),
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useSubmissions(id: number, query: { groupId?: number; from?: string; to?: string }) {
  return useQuery({
    queryKey: ['reports', 'rollup', id, 'submissions', query],
    queryFn: ({ signal }) => unwrap(api.GET('/api/reports/templates/{id}/submissions', { params: { path: { id }, query: { ...query, limit: 100 } }, signal })),
    placeholderData: keepPreviousData,
    retry: false,
  });
}
