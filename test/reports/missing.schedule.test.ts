import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { todayIn } from '../../src/lib/periods.js';
import { dueWeek, MISSING_SCHEDULE } from '../../src/modules/reports/missing.schedule.js';
import { api, setupTestApp } from '../helpers/app.js';
import { newTenant } from '../helpers/factories.js';
import { newTree } from '../helpers/groups.factories.js';
import { changesOf, newTemplate, tenantSql } from './helpers.js';

const ctx = setupTestApp();

describe('report.missing schedule', () => {
  it('dueWeek: from Monday on, the week before; on Sunday the week before last', () => {
    expect(dueWeek('2025-03-10')).toBe('2025-03-02'); // Monday
    expect(dueWeek('2025-03-15')).toBe('2025-03-02'); // Saturday
    expect(dueWeek('2025-03-16')).toBe('2025-03-02'); // Sunday: the week just ended is not due yet
    expect(dueWeek('2025-03-17')).toBe('2025-03-09');
  });

  it('emits report.missing once per group, template and week; not for groups that reported, other categories, monthly or inactive templates', async () => {
    const t = await newTenant(ctx);
    const other = await newTenant(ctx);
    // Far-east zone: "today" may differ from UTC's; the due week follows the tenant's.
    await api(ctx.app, t.admin.token).put('/api/tenants/current', { timeZone: 'Pacific/Kiritimati' });
    const tree = await newTree(ctx, t);
    await newTree(ctx, other);
    const tpl = await newTemplate(ctx, t);
    await newTemplate(ctx, t, { name: 'Monthly', frequency: 'Monthly' });
    await newTemplate(ctx, t, { name: 'Off', isActive: false });
    const period = dueWeek(todayIn('Pacific/Kiritimati'));
    // A1 reported for the due week.
    await tenantSql(ctx, t, sql`insert into report_submissions (tenant_id, template_id, group_id, period, values) values (${t.id}, ${tpl.id}, ${tree.fellowshipA1.id}, ${period}::date, '{}'::jsonb)`);
    await ctx.app.worker.runSchedule(MISSING_SCHEDULE);
    const missing = await changesOf(ctx, t, 'report.missing');
    expect(missing.map((c) => c.data)).toEqual([
      { groupId: tree.fellowshipA2.id, templateId: tpl.id, period, groupName: 'Fellowship A2', templateName: 'Weekly fellowship report' },
      { groupId: tree.fellowshipB1.id, templateId: tpl.id, period, groupName: 'Fellowship B1', templateName: 'Weekly fellowship report' },
    ].sort((a, b) => a.groupId - b.groupId));
    expect(missing.every((c) => c.actorUserId === null && c.entityType === 'report' && c.entityId === tpl.id)).toBe(true);
    await ctx.app.worker.runSchedule(MISSING_SCHEDULE);
    expect(await changesOf(ctx, t, 'report.missing')).toHaveLength(2);
    expect(await changesOf(ctx, other, 'report.missing')).toHaveLength(0);
  });
});
