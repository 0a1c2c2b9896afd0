import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError, ForbiddenError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './categories.repository.js';
import type { CreateEventCategoryBody } from './events.schemas.js';

export function createCategoriesService({ db }: { db: Db }) {
  return {
    list: (auth: Principal, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { items, total } = await repo.pageCategories(tx, auth.tenantId, page);
        return pageResult(page, items, total);
      }),

    create: (auth: Principal, body: CreateEventCategoryBody) => {
      // Event categories are tenant-wide structure (api-contract §4).
      if (!auth.permissions.has('hierarchy:all')) throw new ForbiddenError('Only a user who sees the whole hierarchy may create event categories');
      return withTenant(db, auth, async (tx) => {
        if (await repo.categoryNameTaken(tx, auth.tenantId, body.name)) throw new ConflictError(`Event category '${body.name}' already exists`);
        const category = await repo.insertCategory(tx, auth.tenantId, { name: body.name, description: body.description ?? null });
        await recordChanges(tx, auth, [{ type: 'event_category.created', entityId: category.id, data: { categoryId: category.id, name: category.name } }]);
        return category;
      });
    },
  };
}

export type CategoriesService = ReturnType<typeof createCategoriesService>;
