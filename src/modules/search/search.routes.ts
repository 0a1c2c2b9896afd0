import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams, NoContent, PageQuery, Paginated } from '../../lib/schemas.js';
import type { ModuleOptions } from '../module.js';
import { createBoxService } from './box.service.js';
import { advancedSearch, createListsService } from './lists.service.js';
import {
  AdvancedSearchBody, ContactListItem, CreateSavedListBody, ListsQuery, SavedListSchema, SearchQuery, SearchResult, UpdateSavedListBody,
} from './search.schemas.js';

const tags = ['search'];

/** /api/search: the search box, advanced contact search and saved smart lists (modules-contract §5). */
export const searchRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db }) => {
  const box = createBoxService(db);
  const lists = createListsService(db);

  app.get('', {
    config: { authenticated: true, readOnly: true },
    schema: {
      tags,
      description: 'One search over contacts, groups, events, requests, tasks and users. Any valid token; each type needs its read permission '
        + '(contacts and requests: contacts:read; groups: groups:read; events: events:read; tasks: tasks:read; users: users:read). '
        + 'Only rows the caller may see are found and counted: groups and events by the hierarchy visibility rule, Counseling and Welfare '
        + 'requests only with care:read, tasks by the tasks visibility rule. Contacts in list order, groups by name, events newest first, '
        + 'requests newest first, tasks by due date, users by username.',
      querystring: SearchQuery,
      response: { 200: SearchResult, ...errors(400, 401, 403) },
    },
    handler: (request) => box.search(request.auth, request.query),
  });

  app.post('/contacts', {
    config: { permission: 'contacts:read' },
    schema: {
      tags,
      description: 'Advanced contact search. Text comparisons are case- and accent-insensitive; city and country match any of the contact\'s '
        + 'addresses; neq and isEmpty hold for a missing value; age is in whole years in the tenant\'s time zone; "…WithinDays lt n" means '
        + 'on one of the last n days of the tenant\'s calendar, today included; memberOf/role count active memberships in groups visible '
        + 'to the caller (memberOf includes the subtree; an invisible group is 404). Giving conditions need finance:read, attendance '
        + 'conditions attendance:read and membership conditions (memberOf, notMemberOf, role) groups:read (403).',
      body: AdvancedSearchBody,
      response: { 200: Paginated(ContactListItem), ...errors(400, 401, 403, 404) },
    },
    handler: (request) => advancedSearch(db, request.auth, request.body),
  });

  app.get('/lists', {
    config: { permission: 'contacts:read', readOnly: true },
    schema: { tags, description: 'The caller\'s lists and the shared ones, by name.', querystring: ListsQuery, response: { 200: Paginated(SavedListSchema), ...errors(400, 401, 403) } },
    handler: (request) => lists.list(request.auth, request.query),
  });

  app.post('/lists', {
    config: { permission: 'contacts:read' },
    schema: { tags, description: 'Criteria are checked exactly as the body of POST /api/search/contacts.', body: CreateSavedListBody, response: { 201: SavedListSchema, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => reply.status(201).send(await lists.create(request.auth, request.body)),
  });

  app.get('/lists/:id', {
    config: { permission: 'contacts:read', readOnly: true },
    schema: { tags, params: IdParams, response: { 200: SavedListSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => lists.get(request.auth, request.params.id),
  });

  app.put('/lists/:id', {
    config: { permission: 'contacts:read' },
    schema: {
      tags,
      description: 'By the owner; a shared list also by holders of contacts:write (only the owner may change `shared`).',
      params: IdParams, body: UpdateSavedListBody, response: { 200: SavedListSchema, ...errors(400, 401, 403, 404) },
    },
    handler: (request) => lists.update(request.auth, request.params.id, request.body),
  });

  app.delete('/lists/:id', {
    config: { permission: 'contacts:read' },
    schema: { tags, description: 'By the owner; a shared list also by holders of contacts:write.', params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404) } },
    handler: async (request, reply) => {
      await lists.remove(request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  app.get('/lists/:id/contacts', {
    config: { permission: 'contacts:read', readOnly: true },
    schema: {
      tags,
      description: 'The list\'s members now (evaluated on every read, with the reader\'s visibility). 403 when the list has giving or attendance conditions the reader may not read.',
      params: IdParams, querystring: PageQuery, response: { 200: Paginated(ContactListItem), ...errors(400, 401, 403, 404) },
    },
    handler: (request) => lists.contacts(request.auth, request.params.id, request.query),
  });
};
