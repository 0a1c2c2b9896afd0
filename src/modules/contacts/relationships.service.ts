import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import type { RelationshipType } from '../../db/schema/enums.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { existingContactIds } from './contacts.repository.js';
import * as repo from './relationships.repository.js';
import type { CreateRelationshipBody } from './relationships.schemas.js';

/** "B is A's T" implies "A is B's INVERSE[T]" (api-contract §5). */
export const INVERSE: Record<RelationshipType, RelationshipType> = {
  Spouse: 'Spouse', Parent: 'Child', Child: 'Parent', Sibling: 'Sibling', Guardian: 'Ward', Ward: 'Guardian',
  Grandparent: 'Grandchild', Grandchild: 'Grandparent', Relative: 'Relative', Friend: 'Friend',
  Employer: 'Employee', Employee: 'Employer', Other: 'Other',
};

export async function listRelationships(db: Db, auth: Principal, query: PageRequest & Omit<repo.RelationshipFilter, 'id'>) {
  const page = toPage(query);
  return withTenant(db, auth, async (tx) => {
    const rows = await repo.listRelationshipRows(tx, auth.tenantId, query, page.limit, page.offset);
    const total = await repo.countRelationships(tx, auth.tenantId, query);
    return pageResult(page, rows, total);
  });
}

export async function createRelationship(db: Db, auth: Principal, body: CreateRelationshipBody) {
  const { contactId, relatedContactId, type } = body;
  if (contactId === relatedContactId) throw new BadRequestError('body/relatedContactId must differ from body/contactId');
  return withTenant(db, auth, async (tx) => {
    const found = await existingContactIds(tx, auth.tenantId, [contactId, relatedContactId]);
    const missing = [contactId, relatedContactId].filter((id) => !found.has(id));
    if (missing.length) throw new NotFoundError('Contact', missing);
    if (await repo.relationshipExists(tx, auth.tenantId, contactId, relatedContactId, type)) {
      throw new ConflictError(`Contact ${relatedContactId} is already contact ${contactId}'s ${type}`);
    }
    const pair = await repo.insertRelationshipPair(tx, auth.tenantId, contactId, relatedContactId, type, INVERSE[type]);
    const id = pair[0].id;
    await recordChanges(tx, auth, pairChanges('relationship.created', pair));
    const [item] = await repo.listRelationshipRows(tx, auth.tenantId, { id }, 1, 0);
    return item;
  });
}

export async function deleteRelationship(db: Db, auth: Principal, id: number): Promise<void> {
  await withTenant(db, auth, async (tx) => {
    const row = await repo.findRelationship(tx, auth.tenantId, id);
    if (!row) throw new NotFoundError('Relationship', id);
    const pair = await repo.deleteRelationshipPair(tx, auth.tenantId, row, INVERSE[row.type as RelationshipType] ?? row.type);
    await recordChanges(tx, auth, pairChanges('relationship.deleted', pair));
  });
}

/** A relationship is stored as a pair of rows (one per direction): one change per row, so both people's timelines show it. */
function pairChanges(type: 'relationship.created' | 'relationship.deleted', pair: repo.PairRow[]) {
  return pair.map((r) => ({
    type, entityId: r.id,
    data: { relationshipId: r.id, contactId: r.contactId, relatedContactId: r.relatedContactId, relationshipType: r.type },
  }));
}
