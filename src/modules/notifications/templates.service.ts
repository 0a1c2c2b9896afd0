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
        return repo.insertTemplate(tx, auth.tenantId, body);
      });
    },

    update: (auth: Principal, id: number, body: UpdateTemplateBody) => {
      checkFields(body);
      return withTenant(db, auth, async (tx) => {
        if (!(await repo.findTemplate(tx, auth.tenantId, id))) throw new NotFoundError('Message template', id);
        if (body.name !== undefined && (await repo.templateNameTaken(tx, auth.tenantId, body.name, id))) {
          throw new ConflictError(`Message template '${body.name}' already exists`);
        }
        return (await repo.updateTemplate(tx, auth.tenantId, id, body))!;
      });
    },

    remove: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        if (!(await repo.deleteTemplate(tx, auth.tenantId, id))) throw new NotFoundError('Message template', id);
      }),
  };
}
