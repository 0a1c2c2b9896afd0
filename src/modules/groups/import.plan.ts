/**
 * Plans a group import without touching the database: resolves every row's category and parent
 * by name (existing groups, or rows earlier OR later in the same file), finds rows that already
 * exist, and orders the creations so a parent is always written before its children.
 *
 * Resolution is a topological pass driven by counters, so it is linear and cannot loop: a row
 * waits until every other row carrying its parent's name is settled; rows still waiting when the
 * queue runs dry are in a cycle of parent names and become row errors.
 */

export interface ImportInputRow {
  name?: string | null;
  category?: string | null;
  parentName?: string | null;
}

/** 'e12' = existing group 12, 'n3' = the group created by row index 3. */
type Entity = string;

export interface PlannedCreate {
  row: number;
  name: string;
  categoryId: number;
  /** The parent: an existing group's id, or the index of the row that creates it; null = root. */
  parent: { existingId: number } | { rowIndex: number } | null;
  level: number;
}

export interface ImportPlan {
  creates: PlannedCreate[];
  skipped: number;
  errors: { row: number; message: string }[];
}

interface RowState {
  status: 'pending' | 'error' | 'skip' | 'create';
  name: string;
  key: string;
  parentName: string | null;
  parentKey: string | null;
  categoryId: number;
  entity?: Entity;
  level?: number;
  parent?: Entity | null;
  message?: string;
  queued?: boolean;
}

const lower = (s: string) => s.toLowerCase();

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function planImport(
  rows: ImportInputRow[],
  categories: { id: number; name: string }[],
  existing: { id: number; name: string; parentId: number | null }[],
): ImportPlan {
  const categoryByName = new Map(categories.map((c) => [lower(c.name), c.id]));
  const existingByName = new Map<string, Entity[]>();
  const existingByKey = new Map<string, Entity>();
  for (const g of existing) {
    push(existingByName, lower(g.name), `e${g.id}`);
    existingByKey.set(`${lower(g.name)}|${g.parentId === null ? 'root' : `e${g.parentId}`}`, `e${g.id}`);
  }
  const states = rows.map((row) => validateRow(row, categoryByName));
  const invalidNames = new Set(states.filter((s) => s.status === 'error' && s.key).map((s) => s.key));
  const fileByName = new Map<string, number[]>();
  const waiters = new Map<string, number[]>();
  const unresolved = new Map<string, number>();
  states.forEach((s, i) => {
    if (s.status !== 'pending') return;
    push(fileByName, s.key, i);
    unresolved.set(s.key, (unresolved.get(s.key) ?? 0) + 1);
    if (s.parentKey !== null) push(waiters, s.parentKey, i);
  });

  const isReady = (i: number) => {
    const s = states[i];
    if (s.parentKey === null) return true;
    const self = s.key === s.parentKey ? 1 : 0;
    return (unresolved.get(s.parentKey) ?? 0) - self === 0;
  };
  const queue: number[] = [];
  const enqueue = (i: number) => {
    if (states[i].status === 'pending' && !states[i].queued && isReady(i)) {
      states[i].queued = true;
      queue.push(i);
    }
  };
  states.forEach((_, i) => enqueue(i));

  const createdByKey = new Map<string, Entity>();
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head];
    resolveRow(i, states, { existingByName, existingByKey, fileByName, createdByKey, invalidNames });
    const s = states[i];
    const left = (unresolved.get(s.key) ?? 1) - 1;
    unresolved.set(s.key, left);
    if (left <= 1) for (const w of waiters.get(s.key) ?? []) enqueue(w);
  }

  for (const s of states) {
    if (s.status === 'pending') Object.assign(s, { status: 'error', message: `Parent group '${s.parentName}' is part of a cycle of parent names in the file` });
  }
  return toPlan(states);
}

function validateRow(row: ImportInputRow, categoryByName: Map<string, number>): RowState {
  const name = (row.name ?? '').trim();
  const category = (row.category ?? '').trim();
  const parentName = (row.parentName ?? '').trim() || null;
  const state: RowState = { status: 'pending', name, key: lower(name), parentName, parentKey: parentName && lower(parentName), categoryId: 0 };
  const fail = (message: string) => Object.assign(state, { status: 'error', message });
  if (!name) return fail('name is required');
  if (name.length > 200) return fail('name must be at most 200 characters');
  if (parentName && parentName.length > 200) return fail('parentName must be at most 200 characters');
  if (!category) return fail('category is required');
  const categoryId = categoryByName.get(lower(category));
  if (categoryId === undefined) return fail(`Unknown group category '${category}'`);
  state.categoryId = categoryId;
  return state;
}

interface Lookups {
  existingByName: Map<string, Entity[]>;
  existingByKey: Map<string, Entity>;
  fileByName: Map<string, number[]>;
  createdByKey: Map<string, Entity>;
  invalidNames: Set<string>;
}

function resolveRow(i: number, states: RowState[], l: Lookups): void {
  const s = states[i];
  let parent: Entity | null = null;
  if (s.parentKey !== null) {
    const others = (l.fileByName.get(s.parentKey) ?? []).filter((j) => j !== i);
    const candidates = new Set([...(l.existingByName.get(s.parentKey) ?? []), ...others.map((j) => states[j].entity).filter((e): e is Entity => !!e)]);
    if (candidates.size === 0) {
      const failedParent = l.invalidNames.has(s.parentKey) || others.some((j) => states[j].status === 'error');
      s.status = 'error';
      s.message = failedParent
        ? `Parent group '${s.parentName}' could not be imported`
        : s.parentKey === s.key ? 'A group cannot be its own parent' : `Unknown parent group '${s.parentName}'`;
      return;
    }
    if (candidates.size > 1) {
      Object.assign(s, { status: 'error', message: `Parent group name '${s.parentName}' is ambiguous: ${candidates.size} groups have this name` });
      return;
    }
    [parent] = candidates;
  }
  const key = `${s.key}|${parent ?? 'root'}`;
  const duplicate = l.existingByKey.get(key) ?? l.createdByKey.get(key);
  if (duplicate) {
    Object.assign(s, { status: 'skip', entity: duplicate });
    return;
  }
  const parentRow = parent?.startsWith('n') ? states[Number(parent.slice(1))] : undefined;
  Object.assign(s, { status: 'create', entity: `n${i}`, parent, level: parentRow ? parentRow.level! + 1 : 0 });
  l.createdByKey.set(key, `n${i}`);
}

function toPlan(states: RowState[]): ImportPlan {
  const creates: PlannedCreate[] = [];
  const errors: { row: number; message: string }[] = [];
  let skipped = 0;
  states.forEach((s, i) => {
    if (s.status === 'error') errors.push({ row: i + 1, message: s.message! });
    else if (s.status === 'skip') skipped++;
    else if (s.status === 'create') {
      const parent = s.parent == null ? null : s.parent.startsWith('e') ? { existingId: Number(s.parent.slice(1)) } : { rowIndex: Number(s.parent.slice(1)) };
      creates.push({ row: i + 1, name: s.name, categoryId: s.categoryId, parent, level: s.level! });
    }
  });
  creates.sort((a, b) => a.level - b.level || a.row - b.row);
  return { creates, skipped, errors };
}
