import { recordChanges, fieldChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, ForbiddenError, NotFoundError, BadRequestError } from '../../lib/errors.js';
import { pageResult, toPage } from '../../lib/pagination.js';
import { defaultWindow, periodStart, todayIn, type Interval } from '../../lib/periods.js';
import type { Principal } from '../../plugins/auth.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import { assertWholeTree, manageableGroup } from '../groups/groups.access.js';
import { isGroupManageable, isGroupVisible, loadGroupScope } from '../groups/groups.visibility.js';
import { normalizeFields, validateValues } from './fields.js';
import { checkWindow, resolveScope } from './scope.js';
import * as subs from './submissions.repository.js';
import * as repo from './templates.repository.js';
import type {
  CreateSubmissionBody, CreateTemplateBody, ListSubmissionsQuery, ListTemplatesQuery, Rollup, RollupQuery, SubmissionItem, TemplateItem,
  UpdateSubmissionBody, UpdateTemplateBody,
} from './templates.schemas.js';

/** A submitter may change or delete their submission for this long (modules-contract §4). */
export const EDIT_WINDOW_MS = 7 * 24 * 3600 * 1000;

const intervalOf = (t: { frequency: string }): Interval => (t.frequency === 'Monthly' ? 'month' : 'week');

/** What every report_template change carries in data. */
const templateData = (t: TemplateItem) => ({ templateId: t.id, templateName: t.name, groupCategoryId: t.groupCategoryId, frequency: t.frequency, isActive: t.isActive });
/** The stored fields of a template, for the {from, to} diff of report_template.updated. */
const templateFields = (t: TemplateItem) => ({ name: t.name, description: t.description, groupCategoryId: t.groupCategoryId, frequency: t.frequency, fields: t.fields, isActive: t.isActive });
/** What every report (submission) change carries in data; the entity is the submission, as for report.submitted. */
const submissionData = (s: SubmissionItem) => ({ groupId: s.group.id, groupName: s.group.name, templateId: s.template.id, templateName: s.template.name, period: s.period, submissionId: s.id });

async function loadTemplate(tx: Db, tenantId: number, id: number): Promise<TemplateItem> {
  const template = await repo.findTemplate(tx, tenantId, id);
  if (!template) throw new NotFoundError('Report template', id);
  return template;
}

async function checkCategory(tx: Db, tenantId: number, id: number): Promise<void> {
  if (!(await repo.categoryExists(tx, tenantId, id))) throw new NotFoundError('Group category', id);
}

/** Report templates, their submissions and rollups. */
export function createTemplatesService({ db }: { db: Db }) {
  /** The submission the caller may change: visible (else 404), then submitter within 7 days or hierarchy:all (else 403). */
  async function changeableSubmission(tx: Db, auth: Principal, id: number) {
    const found = await subs.findSubmission(tx, auth.tenantId, id);
    const scope = await loadGroupScope(tx, auth);
    if (!found || !isGroupVisible(scope, { id: found.item.group.id, path: found.groupPath, privacy: found.groupPrivacy })) throw new NotFoundError('Submission', id);
    if (scope.all) return found;
    if (found.submittedById !== auth.userId || Date.now() - found.submittedAtMs > EDIT_WINDOW_MS) {
      throw new ForbiddenError('Only its submitter may change a submission, within 7 days of submitting it (or a holder of hierarchy:all)');
    }
    if (!isGroupManageable(scope, { path: found.groupPath })) throw new ForbiddenError(`You do not lead group ${found.item.group.id} or a group above it`);
    return found;
  }

  return {
    list: (auth: Principal, query: ListTemplatesQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { items, total } = await repo.listTemplates(tx, auth.tenantId, query, page);
        return pageResult(page, items, total);
      }),

    get: (auth: Principal, id: number) => withTenant(db, auth, (tx) => loadTemplate(tx, auth.tenantId, id)),

    create: (auth: Principal, body: CreateTemplateBody) => {
      assertWholeTree(auth, 'Creating a report template');
      const fields = normalizeFields(body.fields);
      return withTenant(db, auth, async (tx) => {
        await checkCategory(tx, auth.tenantId, body.groupCategoryId);
        const id = await repo.insertTemplate(tx, auth.tenantId, {
          name: body.name.trim(),
          description: body.description?.trim() || null,
          groupCategoryId: body.groupCategoryId,
          frequency: body.frequency ?? 'Weekly',
          fields,
          isActive: body.isActive ?? true,
        });
        const template = await loadTemplate(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'report_template.created', entityId: id, data: templateData(template) }]);
        return template;
      });
    },

    update: (auth: Principal, id: number, body: UpdateTemplateBody) => {
      assertWholeTree(auth, 'Changing a report template');
      const fields = body.fields && normalizeFields(body.fields);
      return withTenant(db, auth, async (tx) => {
        const before = await loadTemplate(tx, auth.tenantId, id);
        if (body.groupCategoryId !== undefined) await checkCategory(tx, auth.tenantId, body.groupCategoryId);
        const moves = (body.groupCategoryId !== undefined && body.groupCategoryId !== before.groupCategoryId) || (body.frequency !== undefined && body.frequency !== before.frequency);
        if (moves && (await repo.hasSubmissions(tx, auth.tenantId, id))) {
          throw new ConflictError(`Report template ${id} has submissions: its category and frequency cannot change (create a new template instead)`);
        }
        await repo.updateTemplate(tx, auth.tenantId, id, {
          ...(body.name !== undefined ? { name: body.name.trim() } : {}),
          ...(body.description !== undefined ? { description: body.description?.trim() || null } : {}),
          ...(body.groupCategoryId !== undefined ? { groupCategoryId: body.groupCategoryId } : {}),
          ...(body.frequency !== undefined ? { frequency: body.frequency } : {}),
          ...(fields !== undefined ? { fields } : {}),
          ...(body.isActive !== undefined ? { isActive: body.isActive } : {}),
        });
        const after = await loadTemplate(tx, auth.tenantId, id);
        const changes = fieldChanges(templateFields(before), templateFields(after));
        if (changes) await recordChanges(tx, auth, [{ type: 'report_template.updated', entityId: id, changes, data: templateData(after) }]);
        return after;
      });
    },

    remove: (auth: Principal, id: number) => {
      assertWholeTree(auth, 'Deleting a report template');
      return withTenant(db, auth, async (tx) => {
        const template = await loadTemplate(tx, auth.tenantId, id);
        if (await repo.hasSubmissions(tx, auth.tenantId, id)) throw new ConflictError(`Report template ${id} has submissions: deactivate it instead (isActive: false)`);
        await repo.deleteTemplate(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'report_template.deleted', entityId: id, data: templateData(template) }]);
      });
    },

    submit: (auth: Principal, templateId: number, body: CreateSubmissionBody): Promise<SubmissionItem> =>
      withTenant(db, auth, async (tx) => {
        const template = await loadTemplate(tx, auth.tenantId, templateId);
        const scope = await loadGroupScope(tx, auth);
        const group = await manageableGroup(tx, auth, scope, body.groupId);
        if (group.categoryId !== template.groupCategoryId) {
          throw new BadRequestError(`body/groupId: group ${group.id} is not of the template's category (${template.groupCategory.name})`);
        }
        if (!template.isActive) throw new ConflictError(`Report template ${templateId} is inactive: it takes no new submissions`);
        const values = validateValues(template.fields, body.values);
        const { timeZone } = await loadTenantSettings(tx, auth.tenantId);
        const interval = intervalOf(template);
        const today = todayIn(timeZone);
        const period = periodStart(body.period ?? today, interval);
        if (period > periodStart(today, interval)) throw new BadRequestError(`body/period ${body.period} is in a ${interval} that has not started yet`);
        const existing = await subs.existingSubmissionId(tx, auth.tenantId, templateId, group.id, period);
        if (existing !== undefined) {
          throw new ConflictError(`Group ${group.id} has already submitted template ${templateId} for the ${interval} of ${period} (submission ${existing})`);
        }
        const id = await subs.insertSubmission(tx, auth.tenantId, { templateId, groupId: group.id, period, values, submittedBy: auth.userId });
        await recordChanges(tx, auth, [
          { type: 'report.submitted', entityId: id, data: { groupId: group.id, groupName: group.name, templateId, templateName: template.name, period, submissionId: id } },
        ]);
        return subs.getSubmission(tx, auth.tenantId, id);
      }),

    listSubmissions: (auth: Principal, templateId: number, query: ListSubmissionsQuery) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        await loadTemplate(tx, auth.tenantId, templateId);
        if (query.from && query.to) checkWindow({ from: query.from, to: query.to });
        let h;
        try {
          h = await resolveScope(tx, auth, query.groupId, query.includeDescendants ?? true);
        } catch (err) {
          // A list filter naming nothing visible gives an empty page (api-contract §2).
          if (err instanceof NotFoundError) return pageResult(page, [], 0);
          throw err;
        }
        const { items, total } = await subs.listSubmissions(tx, auth.tenantId, templateId, h, { from: query.from, to: query.to }, page);
        return pageResult(page, items, total);
      }),

    rollup: (auth: Principal, templateId: number, query: RollupQuery): Promise<Rollup> =>
      withTenant(db, auth, async (tx) => {
        const template = await loadTemplate(tx, auth.tenantId, templateId);
        const interval = intervalOf(template);
        const { timeZone } = await loadTenantSettings(tx, auth.tenantId);
        const today = todayIn(timeZone);
        const to = query.to ?? today;
        const from = query.from ?? defaultWindow(query.to ?? today, interval, interval === 'week' ? 4 : 3).from;
        checkWindow({ from, to });
        const h = await resolveScope(tx, auth, query.groupId, query.includeDescendants ?? true);
        const numericKeys = template.fields.filter((f) => f.type === 'number').map((f) => f.key);
        const periods = await subs.rollup(tx, auth.tenantId, template, numericKeys, h, { from, to }, interval);
        return { template: { id: template.id, name: template.name }, from, to, periods };
      }),

    updateSubmission: (auth: Principal, id: number, body: UpdateSubmissionBody): Promise<SubmissionItem> =>
      withTenant(db, auth, async (tx) => {
        const found = await changeableSubmission(tx, auth, id);
        const template = await loadTemplate(tx, auth.tenantId, found.templateId);
        const values = validateValues(template.fields, body.values);
        const diff = fieldChanges({ values: found.item.values }, { values });
        if (diff) {
          await subs.updateSubmissionValues(tx, auth.tenantId, id, values);
          await recordChanges(tx, auth, [{ type: 'report.updated', entityId: id, changes: diff, data: submissionData(found.item) }]);
        }
        return subs.getSubmission(tx, auth.tenantId, id);
      }),

    removeSubmission: (auth: Principal, id: number) =>
      withTenant(db, auth, async (tx) => {
        const found = await changeableSubmission(tx, auth, id);
        await subs.deleteSubmission(tx, auth.tenantId, id);
        await recordChanges(tx, auth, [{ type: 'report.deleted', entityId: id, data: submissionData(found.item) }]);
      }),
  };
}
