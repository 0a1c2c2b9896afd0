import { withTenant, type Db } from '../../db/client.js';
import type { ChangeType } from '../../changes/types.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './changes.repository.js';
import type { AuditItem, AuditQuery, TimelineItem } from './changes.schemas.js';
import { summarize } from './timeline.summaries.js';

const instant = (value: string | Date) => new Date(value).toISOString();

/** Giving amounts are for finance:read: `amount` and any `…Amount` key, at any depth. */
const AMOUNT_KEY = /^amount$|Amount$/;

export function withoutAmounts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAmounts);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !AMOUNT_KEY.test(k)).map(([k, v]) => [k, withoutAmounts(v)]));
  }
  return value;
}

export function createChangesService(db: Db) {
  return {
    /** GET /api/audit (audit:read). */
    audit: (auth: Principal, query: AuditQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { rows, total } = await repo.pageAudit(tx, auth.tenantId, query, page);
        const strip = !auth.permissions.has('finance:read');
        const data: AuditItem[] = rows.map((r) => ({
          id: Number(r.id),
          type: r.type as ChangeType,
          occurredAt: instant(r.occurred_at),
          actor: r.actor_user_id === null ? null : { id: Number(r.actor_user_id), username: r.username },
          entity: { type: r.entity_type, id: Number(r.entity_id) },
          changes: (strip ? withoutAmounts(r.changes) : r.changes) as AuditItem['changes'],
          data: (strip ? withoutAmounts(r.data) : r.data) as AuditItem['data'],
        }));
        return pageResult(page, data, total);
      }),

    /** GET /api/crm/contacts/:id/timeline (contacts:read); what the caller may not read is left out. */
    timeline: (auth: Principal, contactId: number, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        if (!(await repo.contactExists(tx, auth.tenantId, contactId))) throw new NotFoundError('Contact', contactId);
        const page = toPage(query);
        const { rows, total } = await repo.pageTimeline(tx, auth.tenantId, contactId, {
          hideFinance: !auth.permissions.has('finance:read'),
          hideTasks: !auth.permissions.has('tasks:read'),
          hideConfidential: !auth.permissions.has('care:read'),
        }, page);
        const data: TimelineItem[] = rows.map((r) => ({
          at: instant(r.occurred_at),
          type: r.type as ChangeType,
          summary: summarize({ type: r.type as ChangeType, data: r.data ?? {}, changes: r.changes }),
          entity: { type: r.entity_type, id: Number(r.entity_id) },
        }));
        return pageResult(page, data, total);
      }),
  };
}
