import { withTenant, type Db } from '../../db/client.js';
import { BadRequestError } from '../../lib/errors.js';
import { parseCsvRecords } from '../../lib/csv.js';
import type { Principal } from '../../plugins/auth.js';
import { allCategories } from './categories.repository.js';
import { assertWholeTree } from './groups.access.js';
import { insertGroups, lockTree, nextGroupIds, type NewGroup } from './groups.repository.js';
import { MAX_IMPORT_ROWS, type ImportSummary } from './groups.schemas.js';
import { loadGroupNames, loadPaths } from './import.repository.js';
import { planImport, type ImportInputRow, type PlannedCreate } from './import.plan.js';

/** Rows written per statement and transaction: small enough never to stall PGlite's single thread. */
export const IMPORT_BATCH = 500;

const CSV_COLUMNS: Record<string, keyof ImportInputRow> = {
  name: 'name', category: 'category', parentname: 'parentName', parent_name: 'parentName', parent: 'parentName',
};

export function csvRows(text: string): ImportInputRow[] {
  return parseCsvRecords(text, MAX_IMPORT_ROWS).map((record) => {
    const row: ImportInputRow = {};
    for (const [column, value] of Object.entries(record)) {
      const field = CSV_COLUMNS[column.toLowerCase()];
      if (field) row[field] = value;
    }
    return row;
  });
}

export function createImportService(db: Db) {
  /** Writes one batch: parents' paths re-read under the tree lock, ids drawn first, one INSERT. */
  async function writeBatch(auth: Principal, batch: PlannedCreate[], createdIds: Map<number, number>, errors: ImportSummary['errors']) {
    const tenantId = auth.tenantId;
    await withTenant(db, tenantId, async (tx) => {
      await lockTree(tx, tenantId);
      const parentOf = (c: PlannedCreate) => (c.parent === null ? null : 'existingId' in c.parent ? c.parent.existingId : createdIds.get(c.parent.rowIndex)!);
      const parentIds = [...new Set(batch.map(parentOf).filter((id): id is number => id !== null && id !== undefined))];
      const paths = await loadPaths(tx, tenantId, parentIds);
      const writable = batch.filter((c) => {
        const parentId = parentOf(c);
        if (parentId === null || paths.has(parentId)) return true;
        errors.push({ row: c.row, message: 'The parent group was deleted during the import' });
        return false;
      });
      const ids = await nextGroupIds(tx, writable.length);
      const values: NewGroup[] = writable.map((c, k) => {
        const parentId = parentOf(c);
        createdIds.set(c.row - 1, ids[k]);
        return { id: ids[k], name: c.name, categoryId: c.categoryId, parentId, path: `${parentId === null ? '/' : paths.get(parentId)}${ids[k]}/` };
      });
      await insertGroups(tx, tenantId, values);
    });
  }

  return {
    importGroups: async (auth: Principal, rows: ImportInputRow[]): Promise<ImportSummary> => {
      assertWholeTree(auth, 'Importing groups');
      if (rows.length > MAX_IMPORT_ROWS) throw new BadRequestError(`An import takes at most ${MAX_IMPORT_ROWS} rows`);
      const plan = await withTenant(db, auth.tenantId, async (tx) =>
        planImport(rows, await allCategories(tx, auth.tenantId), await loadGroupNames(tx, auth.tenantId)),
      );
      const errors = [...plan.errors];
      const createdIds = new Map<number, number>();
      // Level by level (plan.creates is sorted by level), so a parent is committed before its children.
      for (let start = 0; start < plan.creates.length; ) {
        const level = plan.creates[start].level;
        let end = start;
        while (end < plan.creates.length && end - start < IMPORT_BATCH && plan.creates[end].level === level) end++;
        await writeBatch(auth, plan.creates.slice(start, end), createdIds, errors);
        start = end;
      }
      errors.sort((a, b) => a.row - b.row);
      return { total: rows.length, created: createdIds.size, skipped: plan.skipped, failed: errors.length, errors };
    },
  };
}
