import { Type, type Static } from 'typebox';
import { RELATIONSHIP_TYPES } from '../../db/schema/enums.js';
import { Body, Id, PageQueryProps, StringEnum } from '../../lib/schemas.js';

const RelationshipType = StringEnum(RELATIONSHIP_TYPES);

export const CreateRelationshipBody = Body(
  { contactId: Id, relatedContactId: Id, type: RelationshipType },
  { description: 'relatedContactId is contactId\'s <type>; the inverse is stored too' },
);
export type CreateRelationshipBody = Static<typeof CreateRelationshipBody>;

export const ListRelationshipsQuery = Type.Object({ ...PageQueryProps, contactId: Type.Optional(Id), type: Type.Optional(RelationshipType) });
