import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { parseCsvRecords } from '../../lib/csv.js';
import type { Principal } from '../../plugins/auth.js';
import { allCategories } from './categories.repository.js';
import { assertWholeTree } from './groups.access.js';
import { insertGroups, lockTree, nextGroupIds, type ImportedGroup } from './groups.repository.js';
import { MAX_IMPORT_ROWS, type ImportSummary } from './groups.schemas.js';
import { loadGroupNames, loadPaths } from './import.repository.js';
import { planImport, type ImportInputRow, type PlannedCreate } from './import.plan.js';

/** Rows written per statement and transaction: small enough never to stall PGlite's single thread. */
export const IMPORT_BATCH = 250;

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
  /**
   * Writes one batch (parents always precede their children in plan order): ids are drawn first,
   * paths of parents from earlier batches re-read under the tree lock, then ONE insert.
   */
  async function writeBatch(auth: Principal, batch: PlannedCreate[], createdIds: Map<number, number>, errors: ImportSummary['errors']) {
    const tenantId = auth.tenantId;
    await withTenant(db, tenantId, async (tx) => {
      await lockTree(tx, tenantId);
      const ids = await nextGroupIds(tx, batch.length);
      batch.forEach((c, k) => createdIds.set(c.row - 1, ids[k]));
      const parentOf = (c: PlannedCreate) => (c.parent === null ? null : 'existingId' in c.parent ? c.parent.existingId : createdIds.get(c.parent.rowIndex)!);
      const inBatch = new Set(ids);
      const outside = [...new Set(batch.map(parentOf).filter((id): id is number => id !== null && !inBatch.has(id)))];
      const paths = await loadPaths(tx, tenantId, outside);
      const values: ImportedGroup[] = [];
      batch.forEach((c, k) => {
        const parentId = parentOf(c);
        const parentPath = parentId === null ? '/' : paths.get(parentId);
        if (parentPath === undefined) {
          createdIds.delete(c.row - 1);
          errors.push({ row: c.row, message: 'The parent group was deleted during the import' });
          return;
        }
        paths.set(ids[k], `${parentPath}${ids[k]}/`);
        values.push({ id: ids[k], name: c.name, categoryId: c.categoryId, parentId, path: paths.get(ids[k])! });
      });
      await insertGroups(tx, tenantId, values);
      // One change per created group, all in one statement.
      await recordChanges(tx, auth, values.map((g) => ({
        type: 'group.created' as const, entityId: g.id, data: { groupId: g.id, name: g.name, parentId: g.parentId, categoryId: g.categoryId, privacy: 'Public', imported: true },
      })));
    });
  }

  return {
    /**
     * The HTTP bodies are capped at MAX_IMPORT_ROWS (schema and CSV parser); the CLI passes whole
     * files. `dryRun` plans and counts without writing.
     */
    importGroups: async (auth: Principal, rows: ImportInputRow[], options: { dryRun?: boolean } = {}): Promise<ImportSummary> => {
      assertWholeTree(auth, 'Importing groups');
      const plan = await withTenant(db, auth, async (tx) =>
        planImport(rows, await allCategories(tx, auth.tenantId), await loadGroupNames(tx, auth.tenantId)),
      );
      const errors = [...plan.errors];
      if (options.dryRun) return { total: rows.length, created: plan.creates.length, skipped: plan.skipped, failed: errors.length, errors };
      const createdIds = new Map<number, number>();
      for (let start = 0; start < plan.creates.length; start += IMPORT_BATCH) {
        await writeBatch(auth, plan.creates.slice(start, start + IMPORT_BATCH), createdIds, errors);
      }
      errors.sort((a, b) => a.row - b.row);
      return { total: rows.length, created: createdIds.size, skipped: plan.skipped, failed: errors.length, errors };
    },
  };
}
