import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { groups, messageDeliveries as d, messages as m } from '../../db/schema/index.js';
import type { Page } from '../../lib/pagination.js';
import { subtreeFilter, visibleGroupFilter, type GroupScope } from '../groups/groups.visibility.js';
import type { MessageItem } from './notifications.schemas.js';

type Rows<T> = { rows: T[] };
async function rows<T>(tx: Db, query: SQL): Promise<T[]> {
  return ((await tx.execute(query)) as unknown as Rows<T>).rows;
}

const columns = {
  id: m.id, channel: m.channel, subject: m.subject, body: m.body, templateId: m.templateId, audience: m.audience, status: m.status,
  recipientCount: m.recipientCount, skippedNoEmail: m.skippedNoEmail, skippedOptedOut: m.skippedOptedOut, sent: m.sent, failed: m.failed,
  createdBy: m.createdBy, createdAt: m.createdAt, completedAt: m.completedAt,
};
interface MessageRow {
  id: number; channel: string; subject: string; body: string; templateId: number | null; audience: Record<string, unknown>;
  status: MessageItem['status']; recipientCount: number; skippedNoEmail: number; skippedOptedOut: number; sent: number; failed: number;
  createdBy: number | null; createdAt: Date; completedAt: Date | null;
}

function toItem(r: MessageRow): MessageItem {
  const { skippedNoEmail, skippedOptedOut, ...rest } = r;
  return {
    ...rest,
    audience: r.audience as MessageItem['audience'],
    skipped: { noEmail: skippedNoEmail, optedOut: skippedOptedOut },
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt ? r.completedAt.toISOString() : null,
  };
}

export async function pageMessages(tx: Db, tenantId: number, status: string | undefined, page: Page) {
  const where = and(eq(m.tenantId, tenantId), status ? eq(m.status, status as MessageRow['status']) : undefined);
  const list = await tx.select(columns).from(m).where(where).orderBy(desc(m.id)).limit(page.limit).offset(page.offset);
  const [{ total }] = await tx.select({ total: count() }).from(m).where(where);
  return { items: list.map(toItem), total: Number(total) };
}

export async function findMessage(tx: Db, tenantId: number, id: number): Promise<MessageItem | undefined> {
  const [row] = await tx.select(columns).from(m).where(and(eq(m.tenantId, tenantId), eq(m.id, id)));
  return row && toItem(row);
}

export async function insertMessage(tx: Db, tenantId: number, values: { subject: string; body: string; templateId: number | null; audience: Record<string, unknown>; createdBy: number }) {
  const [row] = await tx.insert(m).values({ tenantId, channel: 'Email', ...values }).returning({ id: m.id });
  return row.id;
}

/** Ids among `ids` that are not contacts of the tenant. */
export async function missingContacts(tx: Db, tenantId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await rows<{ id: string | number }>(tx, sql`select id from contacts where tenant_id = ${tenantId} and id = any(${`{${ids.join(',')}}`}::bigint[])`);
  const have = new Set(found.map((r) => Number(r.id)));
  return [...new Set(ids)].filter((id) => !have.has(id));
}

export interface Audience {
  contactIds: number[];
  /** Paths of the audience groups: their visible subtrees' active members. */
  groupPaths: string[];
  scope: GroupScope;
  /** A saved list's current members as a subquery of contact ids (the search module's savedListContactIdsSql). */
  listMembers?: SQL;
}

/**
 * Resolves the audience into one delivery row per distinct reachable contact (opted-out contacts
 * and contacts without an email are counted, not inserted), in one statement: a message to
 * thousands is queued without loading anyone into memory. The address is the contact's primary
 * email (else its first).
 */
/** The `audience` and `resolved` CTEs: each distinct contact of the audience with its opt-out and address. */
function resolvedAudienceSql(tenantId: number, audience: Audience): SQL {
  const groupMembers = audience.groupPaths.length
    ? sql`union select gm.contact_id from group_memberships gm join ${groups} on ${groups.tenantId} = gm.tenant_id and ${groups.id} = gm.group_id
        where gm.tenant_id = ${tenantId} and gm.is_active and (${sql.join(audience.groupPaths.map((p) => subtreeFilter(groups.path, p)), sql` or `)})
          and ${visibleGroupFilter(audience.scope)}`
    : sql``;
  return sql`
    audience as (
      select unnest(${`{${audience.contactIds.join(',')}}`}::bigint[]) as contact_id
      ${groupMembers}
      ${audience.listMembers ? sql`union select id from (${audience.listMembers}) list_members(id)` : sql``}
    ), resolved as (
      select c.id, c.email_opt_out,
        (select e.value from contact_emails e where e.tenant_id = c.tenant_id and e.contact_id = c.id order by e.is_primary desc, e.position, e.id limit 1) as email
      from contacts c where c.tenant_id = ${tenantId} and c.id in (select contact_id from audience)
    )`;
}

/**
 * Resolves the audience into one delivery row per distinct reachable contact (opted-out contacts
 * and contacts without an email are counted, not inserted), in one statement: a message to
 * thousands is queued without loading anyone into memory. The address is the contact's primary
 * email (else its first).
 */
export async function insertDeliveries(tx: Db, tenantId: number, messageId: number, audience: Audience) {
  const [result] = await rows<{ recipients: string | number; opted_out: string | number; no_email: string | number }>(tx, sql`
    with ${resolvedAudienceSql(tenantId, audience)}, inserted as (
      insert into message_deliveries (tenant_id, message_id, contact_id, email)
      select ${tenantId}, ${messageId}, id, email from resolved where not email_opt_out and email is not null order by id
      returning 1
    )
    select (select count(*) from inserted) as recipients,
      count(*) filter (where email_opt_out) as opted_out,
      count(*) filter (where not email_opt_out and email is null) as no_email
    from resolved`);
  const counts = { recipientCount: Number(result.recipients), noEmail: Number(result.no_email), optedOut: Number(result.opted_out) };
  await tx.update(m).set({ recipientCount: counts.recipientCount, skippedNoEmail: counts.noEmail, skippedOptedOut: counts.optedOut })
    .where(and(eq(m.tenantId, tenantId), eq(m.id, messageId)));
  return counts;
}

export interface PreviewPerson { id: number; firstName: string; lastName: string; email: string | null; optedOut: boolean }

/**
 * What a send to this audience would do, without writing anything: the counts (as insertDeliveries
 * would make them), the first recipient (lowest contact id, the first delivery a send queues) and
 * up to `limit` skipped contacts with their names, in contact id order.
 */
export async function previewAudience(tx: Db, tenantId: number, audience: Audience, limit: number) {
  const named = sql`coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name`;
  const joins = sql`left join persons p on p.tenant_id = ${tenantId} and p.contact_id = r.id
    left join companies co on co.tenant_id = ${tenantId} and co.contact_id = r.id`;
  const list = await rows<{ kind: 'counts' | 'first' | 'skipped'; id: string | number | null; first_name: string | null; last_name: string | null; email: string | null; email_opt_out: boolean | null; recipients: string | number | null; opted_out: string | number | null; no_email: string | number | null }>(tx, sql`
    with ${resolvedAudienceSql(tenantId, audience)}
    (select 'counts' as kind, null::bigint as id, null::text as first_name, null::text as last_name, null::text as email, null::boolean as email_opt_out,
       count(*) filter (where not email_opt_out and email is not null) as recipients,
       count(*) filter (where email_opt_out) as opted_out,
       count(*) filter (where not email_opt_out and email is null) as no_email
     from resolved)
    union all
    (select 'first', r.id, ${named}, r.email, r.email_opt_out, null, null, null
     from resolved r ${joins} where not r.email_opt_out and r.email is not null order by r.id limit 1)
    union all
    (select 'skipped', r.id, ${named}, r.email, r.email_opt_out, null, null, null
     from resolved r ${joins} where r.email_opt_out or r.email is null order by r.id limit ${limit})`);
  const counts = list.find((r) => r.kind === 'counts')!;
  const person = (r: (typeof list)[number]): PreviewPerson => ({
    id: Number(r.id), firstName: r.first_name ?? '', lastName: r.last_name ?? '', email: r.email, optedOut: Boolean(r.email_opt_out),
  });
  const first = list.find((r) => r.kind === 'first');
  return {
    recipientCount: Number(counts.recipients),
    noEmail: Number(counts.no_email),
    optedOut: Number(counts.opted_out),
    first: first ? person(first) : null,
    skipped: list.filter((r) => r.kind === 'skipped').map(person),
  };
}

export async function pageDeliveries(tx: Db, tenantId: number, messageId: number, status: string | undefined, page: Page) {
  const filter = and(eq(d.tenantId, tenantId), eq(d.messageId, messageId), status ? eq(d.status, status as 'Queued') : undefined);
  const list = await rows<{ id: string | number; contact_id: string | number; first_name: string; last_name: string; email: string; status: 'Queued' | 'Sent' | 'Logged' | 'Failed'; error: string | null; sent_at: string | Date | null }>(tx, sql`
    select d.id, d.contact_id, coalesce(p.first_name, co.name, '') as first_name, coalesce(p.last_name, '') as last_name, d.email, d.status, d.error, d.sent_at
    from ${d} d
    left join persons p on p.tenant_id = d.tenant_id and p.contact_id = d.contact_id
    left join companies co on co.tenant_id = d.tenant_id and co.contact_id = d.contact_id
    where d.tenant_id = ${tenantId} and d.message_id = ${messageId} ${status ? sql`and d.status = ${status}` : sql``}
    order by d.id limit ${page.limit} offset ${page.offset}`);
  const [{ total }] = await tx.select({ total: count() }).from(d).where(filter);
  return {
    items: list.map((r) => ({
      id: Number(r.id),
      contact: { id: Number(r.contact_id), firstName: r.first_name, lastName: r.last_name },
      email: r.email,
      status: r.status,
      error: r.error,
      sentAt: r.sent_at ? new Date(r.sent_at).toISOString() : null,
    })),
    total: Number(total),
  };
}
