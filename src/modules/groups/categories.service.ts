import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { ConflictError } from '../../lib/errors.js';
import { pageResult, toPage, type PageRequest } from '../../lib/pagination.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './categories.repository.js';
import { assertWholeTree } from './groups.access.js';
import type { CreateCategoryBody } from './groups.schemas.js';

export function createCategoriesService(db: Db) {
  return {
    list: (auth: Principal, query: PageRequest) =>
      withTenant(db, auth, async (tx) => {
        const page = toPage(query);
        const { rows, total } = await repo.listCategories(tx, auth.tenantId, page);
        return pageResult(page, rows, total);
      }),

    /** Categories are tenant-wide structure: groups:write plus hierarchy:all (api-contract §4). */
    create: (auth: Principal, body: CreateCategoryBody) => {
      assertWholeTree(auth, 'Creating a group category');
      return withTenant(db, auth, async (tx) => {
        if (await repo.findCategoryByName(tx, auth.tenantId, body.name)) {
          throw new ConflictError(`A group category named '${body.name}' already exists`);
        }
        const category = await repo.insertCategory(tx, auth.tenantId, {
          name: body.name, description: body.description ?? null, purpose: body.purpose ?? null, level: body.level ?? null,
        });
        await recordChanges(tx, auth, [{
          type: 'group_category.created', entityId: category.id,
          data: { categoryId: category.id, name: category.name, purpose: category.purpose, level: category.level },
        }]);
        return category;
      });
    },
  };
}
