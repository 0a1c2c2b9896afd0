export const MAX_LIMIT = 100;

export interface PageRequest {
  page?: number;
  limit?: number;
}

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

/** api-contract §2: page ≥ 1 (default 1), limit ≥ 1 (default 20), limits above 100 clamp to 100. */
export function toPage(query: PageRequest): Page {
  // The route schemas refuse bad values with a 400; this only keeps SQL sane whatever reaches it.
  const page = Math.max(1, Math.trunc(finite(query.page, 1)));
  const limit = Math.min(Math.max(1, Math.trunc(finite(query.limit, 20))), MAX_LIMIT);
  return { page, limit, offset: (page - 1) * limit };
}

export interface PageResult<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
}

export function pageResult<T>(page: Page, data: T[], total: number): PageResult<T> {
  return { data, total, page: page.page, limit: page.limit };
}

function finite(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
