import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams } from '../../lib/schemas.js';
import { idempotencySecret } from '../../plugins/idempotency.js';
import { ContactSchema } from '../contacts/contacts.schemas.js';
import type { ModuleOptions, ParishModule } from '../module.js';
import { privacyDocs } from './privacy.docs.js';
import { ContactExport, DuplicatePage, DuplicatesQuery, EraseBody, EraseResult, MergeBody } from './privacy.schemas.js';
import { createPrivacyService } from './privacy.service.js';

const tags = ['privacy'];

const privacyRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db, config }) => {
  const privacy = createPrivacyService(db, idempotencySecret(config));

  app.get('/contacts/:id/export', {
    config: { permission: 'privacy:write' },
    schema: {
      tags,
      description:
        'Everything the tenant holds about the person, as a JSON attachment: the contact with its nested arrays, then one array per ' +
        'table that references contacts (memberships, requests, attendance, registrations, activities, tasks, contributions, pledges, ' +
        'and any table a module adds, under its camel-cased name), the linked user account (no credentials), and the timeline of ' +
        'changes about the person (its own, and every change carrying data.contactId). Because it is all of it, unfiltered, the caller ' +
        'needs, besides privacy:write, every permission that reads what it carries: contacts:read, groups:read, events:read, ' +
        'attendance:read, tasks:read, care:read, finance:read, users:read, audit:read and hierarchy:all (403 naming the missing ones).',
      params: IdParams,
      response: { 200: ContactExport, ...errors(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const doc = await privacy.exportContact(request.auth, request.params.id);
      return reply
        .header('content-disposition', `attachment; filename="contact-${request.params.id}.json"`)
        .type('application/json; charset=utf-8')
        .send(doc);
    },
  });

  app.post('/contacts/:id/erase', {
    config: { permission: 'privacy:write' },
    schema: {
      tags,
      description:
        'One transaction. Names become "Erased" (other profile fields cleared); emails, phones, addresses, occasions, identifications, ' +
        'relationships (both directions), requests, memberships and membership requests are deleted; every other reference to the ' +
        'contact (tasks, contributions, attendance records …) is set to null where its column allows it (attendance stays as counts, ' +
        'no longer linked to the person: a record answers `contact: null`), and otherwise (registrations, activity participants, ' +
        'pledges, cards) stays on the anonymised contact, so counts and money remain. Absence alerts about the person and ' +
        'notifications about the contact are deleted; a message still queued to them fails with "Contact erased". Wherever else ' +
        'the person\'s values were written — task titles and descriptions (also those automations and pipelines wrote), comments, ' +
        'notifications, queued e-mails, session and activity notes, gift notes, references and payer fields, pledge campaigns, ' +
        'messages, saved lists, requests, the audit — their full name, each name part no other person of the tenant bears, their ' +
        'emails and phone numbers (however punctuated) become "[erased]"; names of groups and events are left alone. Stored ' +
        '`Idempotency-Key` answers holding any of those values are withdrawn (a replay answers 410). A linked user is disabled, renamed ' +
        '`erased-<id>`, loses email and password, and its sessions end (409 if it is the last active holder of roles:write; 403 for ' +
        'your own contact). The audit keeps every change about the person with ids, types and statuses, but names, emails, phones, ' +
        'addresses, notes and other values become "[erased]". Records `contact.erased` (and `user.disabled`). 400 unless confirm is true.',
      params: IdParams,
      body: EraseBody,
      response: { 200: EraseResult, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (request) => privacy.eraseContact(request.auth, request.params.id, request.body),
  });

  app.get('/duplicates', {
    config: { permission: 'contacts:read' },
    schema: {
      tags,
      description:
        'Pairs of contacts that share an email (case-insensitive), phone digits (6 or more), or normalised full name (persons) / name ' +
        '(companies). A pair sharing several keys appears once, under its strongest reason. Ordered by score descending, then the ' +
        "pair's ids; erased contacts are never offered.",
      querystring: DuplicatesQuery,
      response: { 200: DuplicatePage, ...errors(400, 401, 403) },
    },
    handler: (request) => privacy.listDuplicates(request.auth, request.query),
  });

  app.post('/contacts/:id/merge', {
    config: { permission: 'privacy:write' },
    schema: {
      tags,
      description:
        'One transaction. Everything that references a source (emails, phones, addresses, memberships, attendance, registrations, ' +
        'activities, requests, tasks, cards, contributions … every table with a foreign key to contacts) moves to the contact in the ' +
        'path, except rows the survivor already has (same email, phone digits, address, group membership, event registration, session ' +
        'record — any unique key of the table), which are dropped; relationships between the merged contacts are dropped; then the ' +
        'sources are deleted. A user linked to a source moves to the survivor when the survivor has none; when both have one, 409. ' +
        'Records `contact.merged` {contactId, sourceIds}, `contact.deleted` per source {contactId, mergedInto}, and `user.updated` for a ' +
        'moved user. 404 names every unknown id; 400 when the survivor is among the sources.',
      params: IdParams,
      body: MergeBody,
      response: { 200: ContactSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (request) => privacy.mergeContacts(request.auth, request.params.id, request.body),
  });
};

/** Privacy: contact export, erase, duplicates and merge (modules-contract §7). */
export const privacyModule: ParishModule = {
  name: 'privacy',
  prefix: '/api/crm',
  routes: privacyRoutes,
  docs: privacyDocs,
};
