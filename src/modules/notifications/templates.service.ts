import { fieldChanges, recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import { assertMergeFields } from './merge-fields.js';
import type { CreateTemplateBody, UpdateTemplateBody } from './notifications.schemas.js';
import * as repo from './templates.repository.js';

function checkFields(body: { subject?: string; body?: string }) {
  if (body.subject !== undefined) assertMergeFields(body.subject, 'body/subject');
  if (body.body !== undefined) assertMergeFields(body.body, 'body/body');
}

/** What template changes carry (the subject and body only in an update's from/to). */
const templateData = (t: { id: number; name: string }) => ({ templateId: t.id, name: t.name });

/** Message templates: tenant-wide, notifications:send. */
export function createTemplatesService({ db }: { db: Db }) {
  return {
    list: (auth: Principal, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { items, total } = await repo.pageTemplates(tx, auth.tenantId, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const template = await repo.findTemplate(tx, auth.tenantId, id);
        if (!template) throw new NotFoundError('Message template', id);
        return template;
      }),

    create: (auth: Principal, body: CreateTemplateBody) => {
      checkFields(body);
      return withTenant(db, auth, async (tx) => {
        if (await repo.templateNameTaken(tx, auth.tenantId, body.name)) throw new ConflictError(`Message template '${body.name}' already exists`);
        const template = await repo.insertTemplate(tx, auth.tenantId, body);
        await recordChanges(tx, auth, [{ type: 'message_template.created', entityId: template.id, data: templateData(template) }]);
        return template;
      });
    },

    update: (auth: Principal, id: number, body: UpdateTemplateBody) => {
      checkFields(body);
      return withTenant(db, auth, async (tx) => {
        const before = await repo.findTemplate(tx, auth.tenantId, id);
        if (!before) throw new NotFoundError('Message template', id);
        if (body.name !== undefined && (await repo.templateNameTaken(tx, auth.tenantId, body.name, id))) {
          throw new ConflictError(`Message template '${body.name}' already exists`);
        }
        const after = (await repo.updateTemplate(tx, auth.tenantId, id, body))!;
        const diff = fieldChanges(before, { name: body.name, subject: body.subject, body: body.body });
        if (diff) await recordChanges(tx, auth, [{ type: 'message_template.updated', entityId: id, changes: diff, data: templateData(after) }]);
        return after;
      });
    },

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const template = await repo.findTemplate(tx, auth.tenantId, id);
        if (!template || !(await repo.deleteTemplate(tx, auth.tenantId, id))) throw new NotFoundError('Message template', id);
        await recordChanges(tx, auth, [{ type: 'message_template.deleted', entityId: id, data: templateData(template) }]);
      }),
  };
}
