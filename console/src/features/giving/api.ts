import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type RequestBody } from '../../shared';

/** The giving area's requests over the typed client (modules-contract §3, /api/finance). */
export const givingKeys = {
  all: ['giving'] as const,
  batches: (status: string, page: number) => ['giving', 'batches', status, page] as const,
  batch: (id: number) => ['giving', 'batch', id] as const,
  batchGifts: (id: number) => ['giving', 'batch-gifts', id] as const,
  funds: ['giving', 'funds'] as const,
};

export function useFunds() {
  return useQuery({
    queryKey: givingKeys.funds,
    queryFn: ({ signal }) => unwrap(api.GET('/api/finance/funds', { params: { query: { limit: 100 } }, signal })),
    staleTime: 60_000,
  });
}

export type Fund = NonNullable<ReturnType<typeof useFunds>['data']>['data'][number];

export function useBatches(status: '' | 'Open' | 'Closed', page: number) {
  return useQuery({
    queryKey: givingKeys.batches(status, page),
    queryFn: ({ signal }) => unwrap(api.GET('/api/finance/batches', { params: { query: { status: status || undefined, page, limit: 25 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

export function useBatch(id: number) {
  return useQuery({ queryKey: givingKeys.batch(id), queryFn: ({ signal }) => unwrap(api.GET('/api/finance/batches/{id}', { params: { path: { id } }, signal })) });
}

export type Batch = NonNullable<ReturnType<typeof useBatch>['data']>;

/** The batch's gifts, newest first (the last 100 entered). */
export function useBatchGifts(id: number) {
  return useQuery({
    queryKey: givingKeys.batchGifts(id),
    queryFn: ({ signal }) => unwrap(api.GET('/api/finance/contributions', { params: { query: { batchId: id, sort: '-date', limit: 100 } }, signal })),
  });
}

export type Gift = NonNullable<ReturnType<typeof useBatchGifts>['data']>['data'][number];
export type GiftBody = RequestBody<'/api/finance/contributions', 'post'>;
export type GiftChanges = RequestBody<'/api/finance/contributions/{id}', 'put'>;

export function useCreateBatch() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: RequestBody<'/api/finance/batches', 'post'>) => unwrap(api.POST('/api/finance/batches', { body })),
    onSuccess: async (saved) => {
      client.setQueryData(givingKeys.batch(saved.id), saved);
      await client.invalidateQueries({ queryKey: ['giving', 'batches'] });
    },
  });
}

/** The writes of a batch's page; each refreshes the batch (its totals) and its gifts. */
export function useBatchActions(id: number) {
  const client = useQueryClient();
  const refresh = async (batch?: Batch) => {
    if (batch) client.setQueryData(givingKeys.batch(id), batch);
    await Promise.all([
      client.invalidateQueries({ queryKey: givingKeys.batch(id) }),
      client.invalidateQueries({ queryKey: givingKeys.batchGifts(id) }),
      client.invalidateQueries({ queryKey: ['giving', 'batches'] }),
      client.invalidateQueries({ queryKey: ['giving', 'contributions'] }),
    ]);
  };
  const path = { id };
  return {
    add: useMutation({ mutationFn: (body: GiftBody) => unwrap(api.POST('/api/finance/contributions', { body })), onSuccess: () => refresh() }),
    edit: useMutation({
      mutationFn: ({ giftId, body }: { giftId: number; body: GiftChanges }) => unwrap(api.PUT('/api/finance/contributions/{id}', { params: { path: { id: giftId } }, body })),
      onSuccess: () => refresh(),
    }),
    remove: useMutation({
      mutationFn: async (giftId: number) => {
        await unwrap(api.DELETE('/api/finance/contributions/{id}', { params: { path: { id: giftId } } }));
      },
      onSuccess: () => refresh(),
    }),
    close: useMutation({ mutationFn: (force: boolean) => unwrap(api.PUT('/api/finance/batches/{id}/close', { params: { path }, body: { force } })), onSuccess: refresh }),
    reopen: useMutation({ mutationFn: () => unwrap(api.PUT('/api/finance/batches/{id}/reopen', { params: { path } })), onSuccess: refresh }),
  };
}

/** Donors to pick while typing: people by name, email or phone digits, and households by name. */
export function useDonorChoices(q: string) {
  const term = q.trim();
  const people = useQuery({
    queryKey: ['giving', 'donors', 'people', term], enabled: term.length > 0,
    queryFn: ({ signal }) => unwrap(api.GET('/api/crm/contacts', { params: { query: { q: term, limit: 8 } }, signal })),
    placeholderData: keepPreviousData,
  });
  const households = useQuery({
    queryKey: ['giving', 'donors', 'households', term], enabled: term.length > 1 && !/^[\d\s+()-]+$/.test(term),
    queryFn: ({ signal }) => unwrap(api.GET('/api/crm/households', { params: { query: { q: term, limit: 5 } }, signal })),
    placeholderData: keepPreviousData,
  });
  return { people, households };
}

export interface ContributionFilter {
  fundId?: number;
  from?: string;
  to?: string;
  q?: string;
}

export function useContributions(filter: ContributionFilter, page: number) {
  return useQuery({
    queryKey: ['giving', 'contributions', filter, page],
    queryFn: ({ signal }) => unwrap(api.GET('/api/finance/contributions', { params: { query: { ...filter, page, limit: 25 } }, signal })),
    placeholderData: keepPreviousData,
  });
}

/** A file answer (PDF, CSV, ZIP) as a blob URL; the API's message when it refuses. */
async function fileUrl(answer: Promise<{ data?: unknown; error?: unknown; response: Response }>, type: string, what: string): Promise<string> {
  const { data, response } = await answer;
  if (!response.ok || !(data instanceof Blob)) {
    let message = `${what} could not be made (the server answered ${response.status}).`;
    try {
      const text = data instanceof Blob ? await data.text() : '';
      const parsed = JSON.parse(text) as { message?: string };
      if (parsed.message) message = parsed.message;
    } catch {
      // not JSON: keep the generic message
    }
    throw new ApiError(response.status, message);
  }
  return URL.createObjectURL(new Blob([data], { type }));
}

export function exportCsv(filter: ContributionFilter): Promise<string> {
  return fileUrl(api.GET('/api/finance/contributions/export', { params: { query: filter }, parseAs: 'blob' }), 'text/csv', 'The CSV');
}

export type Donor = { kind: 'contact'; id: number } | { kind: 'household'; id: number };

export function useStatement(donor: Donor | undefined, from: string, to: string) {
  return useQuery({
    queryKey: ['giving', 'statement', donor, from, to],
    enabled: donor !== undefined,
    queryFn: async ({ signal }) => {
      const query = { from, to };
      if (donor!.kind === 'household') {
        const s = await unwrap(api.GET('/api/finance/statements/households/{id}', { params: { path: { id: donor!.id }, query }, signal }));
        return { name: s.household.name, currency: s.currency, lines: s.lines.length, totals: s.totals, period: s.period };
      }
      const s = await unwrap(api.GET('/api/finance/statements/{contactId}', { params: { path: { contactId: donor!.id }, query }, signal }));
      return { name: `${s.contact.firstName} ${s.contact.lastName}`.trim(), currency: s.currency, lines: s.lines.length, totals: s.totals, period: s.period };
    },
  });
}

/** The statement's PDF as a blob URL (fetched with the session's token). */
export function statementPdf(donor: Donor, from: string, to: string): Promise<string> {
  const query = { from, to, format: 'pdf' as const };
  const answer = donor.kind === 'household'
    ? api.GET('/api/finance/statements/households/{id}', { params: { path: { id: donor.id }, query }, parseAs: 'blob' })
    : api.GET('/api/finance/statements/{contactId}', { params: { path: { contactId: donor.id }, query }, parseAs: 'blob' });
  return fileUrl(answer, 'application/pdf', 'The statement');
}

/** Every donor's statement in one ZIP (finance:admin). */
export function bulkStatements(body: RequestBody<'/api/finance/statements/bulk', 'post'>): Promise<string> {
  return fileUrl(api.POST('/api/finance/statements/bulk', { body, parseAs: 'blob' }), 'application/zip', 'The statements');
}

export function usePledges(fundId: number | undefined, page: number) {
  return useQuery({
    queryKey: ['giving', 'pledges', fundId, page],
    queryFn: ({ signal }) => unwrap(api.GET('/api/finance/pledges', { params: { query: { fundId, page, limit: 25 } }, signal })),
    placeholderData: keepPreviousData,
  });
}
