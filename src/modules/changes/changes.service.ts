import { withTenant, type Db } from '../../db/client.js';
import { readableChangeSql, redactChange } from '../../changes/readable.js';
import type { ChangeType } from '../../changes/types.js';
import { NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { changeReader } from '../groups/groups.visibility.js';
import * as repo from './changes.repository.js';
import type { AuditItem, AuditQuery, TimelineItem } from './changes.schemas.js';
import { summarize } from './timeline.summaries.js';

const instant = (value: string | Date) => new Date(value).toISOString();

export function createChangesService(db: Db) {
  return {
    /** GET /api/audit (audit:read): the changes the caller may read (src/changes/readable.ts). */
    audit: (auth: Principal, query: AuditQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const readable = readableChangeSql(await changeReader(tx, auth));
        const { rows, total } = await repo.pageAudit(tx, auth.tenantId, query, readable, page);
        const data: AuditItem[] = rows.map((r) => {
          const { data, changes } = redactChange(auth.permissions, { data: r.data, changes: r.changes });
          return {
            id: Number(r.id),
            type: r.type as ChangeType,
            occurredAt: instant(r.occurred_at),
            actor: r.actor_user_id === null ? null : { id: Number(r.actor_user_id), username: r.username },
            entity: { type: r.entity_type, id: Number(r.entity_id) },
            changes: changes as AuditItem['changes'],
            data,
          };
        });
        return pageResult(page, data, total);
      }),

    /** GET /api/crm/contacts/:id/timeline (contacts:read); what the caller may not read is left out (src/changes/readable.ts). */
    timeline: (auth: Principal, contactId: number, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        if (!(await repo.contactExists(tx, auth.tenantId, contactId))) throw new NotFoundError('Contact', contactId);
        const page = toPage(query);
        const readable = readableChangeSql(await changeReader(tx, auth));
        const { rows, total } = await repo.pageTimeline(tx, auth.tenantId, contactId, readable, page);
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
