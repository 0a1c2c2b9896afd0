import { sql, type SQL } from 'drizzle-orm';

/**
 * The people a check-in kiosk reaches (modules-contract §8, the trust issue): the family lookup
 * answers only them, and a caller without contacts:read checks in only them. A person is reachable
 * when the contact is a Person, Active or Inactive (not Deceased, MovedAway or
 * TransferredToAnotherChurch), not erased, and not known to the church only through non-public
 * groups (every active membership in a Private group: a kiosk must not learn of them).
 * `c` and `p` are the aliases of the person's contacts and persons rows in the enclosing query.
 */
export function reachablePerson(tenantId: number, c: 'c' | 'rc', p: 'p' | 'rp'): SQL {
  const contact = sql.raw(c);
  const person = sql.raw(p);
  const memberOf = (privacy: SQL) => sql`exists (select 1 from group_memberships km join groups kg on kg.tenant_id = km.tenant_id and kg.id = km.group_id
      where km.tenant_id = ${tenantId} and km.contact_id = ${contact}.id and km.is_active and ${privacy})`;
  return sql`(${contact}.category = 'Person' and ${contact}.status in ('Active', 'Inactive')
    and not (${person}.last_name = 'Erased' and exists (select 1 from changes ch where ch.tenant_id = ${tenantId} and ch.entity_type = 'contact'
      and ch.entity_id = ${contact}.id and ch.type = 'contact.erased'))
    and (not ${memberOf(sql`kg.privacy <> 'Public'`)} or ${memberOf(sql`kg.privacy = 'Public'`)}))`;
}
