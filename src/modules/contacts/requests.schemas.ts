import { Type, type Static } from 'typebox';
import { REQUEST_STATUSES, REQUEST_TYPES } from '../../db/schema/enums.js';
import { Body, Id, PageQueryProps, StringEnum } from '../../lib/schemas.js';

const RequestType = StringEnum(REQUEST_TYPES);
const RequestStatus = StringEnum(REQUEST_STATUSES, { description: 'Open by default' });

export const CreateRequestBody = Body({
  contactId: Id,
  type: RequestType,
  description: Type.String({ minLength: 1, maxLength: 5000 }),
  status: Type.Optional(RequestStatus),
});
export type CreateRequestBody = Static<typeof CreateRequestBody>;

export const UpdateRequestBody = Body({
  contactId: Type.Optional(Id),
  type: Type.Optional(RequestType),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
  status: Type.Optional(RequestStatus),
});
export type UpdateRequestBody = Static<typeof UpdateRequestBody>;

export const ListRequestsQuery = Type.Object({
  ...PageQueryProps,
  contactId: Type.Optional(Id),
  type: Type.Optional(RequestType),
  status: Type.Optional(RequestStatus),
});
