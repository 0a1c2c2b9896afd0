import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { ident, rowsOf, type ContactLink } from './contact-links.js';

/** What the contact read (loadContact) already carries: not repeated as sections. */
const IN_CONTACT_DOCUMENT = new Set([
  'persons.contact_id', 'companies.contact_id', 'contact_emails.contact_id', 'contact_phones.contact_id', 'contact_addresses.contact_id',
  'contact_occasions.contact_id', 'contact_identifications.contact_id', 'contact_relationships.contact_id', 'contact_relationships.related_contact_id',
]);

/** Sections named by the contract (modules-contract §7), always present, empty when their table does not exist (yet). */
export const NAMED_SECTIONS = ['memberships', 'requests', 'attendance', 'registrations', 'activities', 'tasks', 'contributions', 'pledges'] as const;

const SECTION_NAMES: Record<string, string> = {
  'group_memberships.contact_id': 'memberships',
  'group_membership_requests.contact_id': 'membershipRequests',
  'contact_requests.contact_id': 'requests',
  'attendance_records.contact_id': 'attendance',
  'event_registrations.contact_id': 'registrations',
  'event_activity_contacts.contact_id': 'activities',
  'tasks.contact_id': 'tasks',
  'contributions.contact_id': 'contributions',
  'pledges.contact_id': 'pledges',
  'users.contact_id': 'users',
};

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `tasks.contact_id` → tasks; `tasks.assignee_contact_id` → tasksByAssigneeContact. */
export function sectionName(link: Pick<ContactLink, 'table' | 'column'>): string {
  const known = SECTION_NAMES[`${link.table}.${link.column}`];
  if (known) return known;
  if (link.column === 'contact_id') return camel(link.table);
  const by = camel(link.column.replace(/_id$/, ''));
  return `${camel(link.table)}By${by[0].toUpperCase()}${by.slice(1)}`;
}

/** Rows of one link as JSON, richer for a few tables whose bare row says little. */
function sectionQuery(link: ContactLink, tenantId: number, contactId: number): SQL {
  const table = ident(link.table);
  const column = ident(link.column);
  const where = `x.tenant_id = ${tenantId} AND x.${column} = ${contactId}`;
  if (link.table === 'event_activity_contacts' && link.column === 'contact_id') {
    return sql.raw(`(SELECT coalesce(json_agg(to_jsonb(a) ORDER BY a.id), '[]'::json) FROM event_activity_contacts x
      JOIN event_activities a ON a.tenant_id = x.tenant_id AND a.id = x.activity_id WHERE ${where})`);
  }
  if (link.table === 'group_memberships' && link.column === 'contact_id') {
    return sql.raw(`(SELECT coalesce(json_agg(to_jsonb(x) || jsonb_build_object('group', jsonb_build_object('id', g.id, 'name', g.name)) ORDER BY x.id), '[]'::json)
      FROM group_memberships x JOIN "groups" g ON g.tenant_id = x.tenant_id AND g.id = x.group_id WHERE ${where})`);
  }
  return sql.raw(`(SELECT coalesce(json_agg(to_jsonb(x) ORDER BY (to_jsonb(x)->>'id')::numeric NULLS LAST), '[]'::json) FROM ${table} x WHERE ${where})`);
}

/**
 * Every section of the export in ONE statement (one scalar subquery per linked table), plus the
 * timeline: the changes about the contact (its own, or carrying data.contactId).
 */
export async function loadSections(tx: Db, tenantId: number, contactId: number, links: ContactLink[]): Promise<Record<string, unknown[]>> {
  const sectionLinks = links.filter((l) => !IN_CONTACT_DOCUMENT.has(`${l.table}.${l.column}`));
  const columns = sectionLinks.map((l, i) => sql`${sectionQuery(l, tenantId, contactId)} AS ${sql.raw(`s${i}`)}`);
  const timeline = sql`(SELECT coalesce(json_agg(json_build_object('id', c.id, 'type', c.type, 'occurredAt', c.occurred_at,
      'entity', json_build_object('type', c.entity_type, 'id', c.entity_id), 'actorUserId', c.actor_user_id, 'changes', c.changes, 'data', c.data)
      ORDER BY c.id), '[]'::json)
    FROM changes c WHERE c.tenant_id = ${tenantId}
      AND ((c.entity_type = 'contact' AND c.entity_id = ${contactId}) OR c.data->'contactId' = to_jsonb(${contactId}::bigint)))`;
  const [row] = rowsOf<Record<string, unknown>>(await tx.execute(sql`SELECT ${sql.join([...columns, sql`${timeline} AS timeline`], sql`, `)}`));
  const out: Record<string, unknown[]> = {};
  for (const name of NAMED_SECTIONS) out[name] = [];
  sectionLinks.forEach((link, i) => {
    const name = sectionName(link);
    out[name] = [...(out[name] ?? []), ...(parseJson(row[`s${i}`]) as Record<string, unknown>[]).map(cleanRow)];
  });
  out.timeline = (parseJson(row.timeline) as Record<string, unknown>[]).map((c) => ({ ...c, occurredAt: iso(c.occurredAt) }));
  return out;
}

function parseJson(value: unknown): unknown[] {
  return (typeof value === 'string' ? JSON.parse(value) : value ?? []) as unknown[];
}

const SECRET = /password|secret|token|hash/i;

/** snake_case keys to camelCase, tenant_id and credentials left out, instants in UTC. */
function cleanRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === 'tenant_id' || SECRET.test(key)) continue;
    out[camel(key)] = key.endsWith('_at') ? iso(value) : value && typeof value === 'object' && !Array.isArray(value) && key !== 'meta_data' ? cleanRow(value as Record<string, unknown>) : value;
  }
  return out;
}

function iso(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}
