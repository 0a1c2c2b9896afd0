import { describe, expect, it } from 'vitest';
import { planImport } from '../../src/modules/groups/import.plan.js';

/** The pure planning step of the group import (no database). */
const CATS = [{ id: 1, name: 'Church' }, { id: 2, name: 'Zone' }];

describe('import plan', () => {
  it('orders creations parents-first whatever the row order', () => {
    const plan = planImport(
      [{ name: 'C', category: 'Zone', parentName: 'B' }, { name: 'B', category: 'Zone', parentName: 'A' }, { name: 'A', category: 'Church' }],
      CATS, [],
    );
    expect(plan.errors).toEqual([]);
    expect(plan.creates.map((c) => [c.name, c.level])).toEqual([['A', 0], ['B', 1], ['C', 2]]);
    expect(plan.creates[1].parent).toEqual({ rowIndex: 2 });
    expect(plan.creates[2].parent).toEqual({ rowIndex: 1 });
  });

  it('a name created twice in the file under different parents is an ambiguous parent', () => {
    const plan = planImport(
      [
        { name: 'Root1', category: 'Church' }, { name: 'Root2', category: 'Church' },
        { name: 'Dup', category: 'Zone', parentName: 'Root1' }, { name: 'Dup', category: 'Zone', parentName: 'Root2' },
        { name: 'Kid', category: 'Zone', parentName: 'dup' },
      ],
      CATS, [],
    );
    expect(plan.creates).toHaveLength(4);
    expect(plan.errors).toEqual([{ row: 5, message: "Parent group name 'dup' is ambiguous: 2 groups have this name" }]);
  });

  it('a file row equal to an existing group is the same parent, not a second candidate', () => {
    const plan = planImport(
      [{ name: 'Kid', category: 'Zone', parentName: 'Zone A' }, { name: 'Zone A', category: 'Zone', parentName: 'Church' }],
      CATS, [{ id: 10, name: 'Church', parentId: null }, { id: 11, name: 'Zone A', parentId: 10 }],
    );
    expect(plan).toEqual({ creates: [{ row: 1, name: 'Kid', categoryId: 2, parent: { existingId: 11 }, level: 0 }], skipped: 1, errors: [] });
  });

  it('a self-named parent resolves to an existing group of that name', () => {
    const plan = planImport([{ name: 'Team', category: 'Zone', parentName: 'Team' }], CATS, [{ id: 5, name: 'Team', parentId: null }]);
    expect(plan.creates).toEqual([{ row: 1, name: 'Team', categoryId: 2, parent: { existingId: 5 }, level: 0 }]);
  });

  it('a long cycle is reported on every row of it; rows hanging below it fail too', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `N${i}`, category: 'Zone', parentName: `N${(i + 1) % 1000}` }));
    rows.push({ name: 'Below', category: 'Zone', parentName: 'N0' });
    const plan = planImport(rows, CATS, []);
    expect(plan.creates).toEqual([]);
    expect(plan.errors).toHaveLength(1001);
    expect(plan.errors[0].message).toMatch(/cycle/);
  });
});
