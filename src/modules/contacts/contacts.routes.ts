import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions } from '../module.js';
import { errors, IdParams, NoContent, Paginated } from '../../lib/schemas.js';
import { importRoutes } from './import.routes.js';
import { relationshipsRoutes } from './relationships.routes.js';
import { requestsRoutes } from './requests.routes.js';
import * as service from './contacts.service.js';
import {
  CategoryListQuery, ContactListItem, ContactSchema, CreateContactBody, ListContactsQuery, UpdateContactBody,
} from './contacts.schemas.js';

/** /api/crm: contacts, people, companies, import, relationships and requests (tenant-wide, no hierarchy filter). */
export const contactsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, options) => {
  const { db } = options;
  const tags = ['contacts'];
  const read = { permission: 'contacts:read', readOnly: true } as const;
  const write = { permission: 'contacts:write' } as const;
  const ContactPage = Paginated(ContactListItem);

  app.get('/contacts', {
    config: read,
    schema: { tags, querystring: ListContactsQuery, response: { 200: ContactPage, ...errors(400, 401, 403) } },
    handler: (request) => service.listContacts(db, request.auth, request.query),
  });

  app.get('/people', {
    config: read,
    schema: { tags, querystring: CategoryListQuery, response: { 200: ContactPage, ...errors(400, 401, 403) } },
    handler: (request) => service.listContacts(db, request.auth, { ...request.query, category: 'Person' }),
  });

  app.get('/companies', {
    config: read,
    schema: { tags, querystring: CategoryListQuery, response: { 200: ContactPage, ...errors(400, 401, 403) } },
    handler: (request) => service.listContacts(db, request.auth, { ...request.query, category: 'Company' }),
  });

  app.post('/contacts', {
    config: write,
    schema: { tags, body: CreateContactBody, response: { 201: ContactSchema, ...errors(400, 401, 403) } },
    handler: async (request, reply) => reply.status(201).send(await service.createContact(db, request.auth, request.body)),
  });

  app.get('/contacts/:id', {
    config: read,
    schema: { tags, params: IdParams, response: { 200: ContactSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => service.getContact(db, request.auth, request.params.id),
  });

  app.put('/contacts/:id', {
    config: write,
    schema: { tags, params: IdParams, body: UpdateContactBody, response: { 200: ContactSchema, ...errors(400, 401, 403, 404) } },
    handler: (request) => service.updateContact(db, request.auth, request.params.id, request.body),
  });

  app.delete('/contacts/:id', {
    config: write,
    schema: { tags, params: IdParams, response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) } },
    handler: async (request, reply) => {
      await service.deleteContact(db, request.auth, request.params.id);
      return reply.status(204).send(null);
    },
  });

  // Without the parent's `prefix`, which Fastify would otherwise apply twice.
  const { config, mailer, auth } = options;
  const children: ModuleOptions = { db, config, mailer, auth };
  await app.register(importRoutes, children);
  await app.register(relationshipsRoutes, children);
  await app.register(requestsRoutes, children);
};
