import fs from 'node:fs';
import { expect, it } from 'vitest';
import { api } from '../helpers/app.js';
import { checkScreen, describeInBrowser, newPage, setupBrowser, signIn } from '../helpers/browser.js';
import { newTenant, PASSWORD } from '../helpers/factories.js';
import { addMembership, newContact, newGroup, newLeaderOf, newTree } from '../helpers/groups.factories.js';
import { newTemplate, thisWeek } from '../reports/helpers.js';

const ctx = setupBrowser();

describeInBrowser('the console: reports', { timeout: 240_000 }, () => {
  it('a leader fills in the weekly report for their fellowship; the rollup shows it reported and the other fellowship not yet', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    const template = await newTemplate(ctx, t, { description: 'Every Sunday evening, for the week just ended' });
    const leader = await newLeaderOf(ctx, t, tree.clusterA); // leads Fellowship A1 and A2

    const page = await newPage(ctx);
    await signIn(page, t.slug, leader.username, PASSWORD);
    await page.goto('/reports');
    await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Fill in Weekly fellowship report' }).waitFor();
    await page.getByRole('link', { name: 'Attendance trend' }).waitFor();
    await checkScreen(page, 'reports-home');

    await page.getByRole('link', { name: 'Fill in Weekly fellowship report' }).click();
    await page.getByRole('heading', { name: 'Weekly fellowship report' }).waitFor();
    await page.getByRole('combobox', { name: 'Fellowship', exact: true }).click();
    await page.getByRole('option', { name: 'Fellowship A1' }).click();
    // A required number left empty: the API's message beside the field, what was typed kept.
    await page.getByLabel('Visitors').fill('3');
    await page.getByLabel('Met').check();
    await page.getByLabel('Notes').fill('Met at the Okellos\'');
    await checkScreen(page, 'reports-submit-form');
    await page.getByRole('button', { name: 'Submit report' }).click();
    await page.getByText('Attendance is required').waitFor();
    await expect(page.getByLabel('Visitors').inputValue()).resolves.toBe('3');
    await page.getByRole('textbox', { name: 'Attendance' }).fill('14');
    await page.getByRole('button', { name: 'Submit report' }).click();
    await page.getByText('Thank you, your report is in').waitFor();
    await checkScreen(page, 'reports-submitted');

    const stored = (await api(ctx.app, t.admin.token).get(`/api/reports/templates/${template.id}/submissions`)).json();
    expect(stored.data).toHaveLength(1);
    expect(stored.data[0]).toMatchObject({ group: { id: tree.fellowshipA1.id }, period: thisWeek(), values: { attendance: 14, visitors: 3, met: true, notes: 'Met at the Okellos\'' }, submittedBy: { id: leader.id } });

    // The rollup: A1 reported (by the leader), A2 not yet; the week's sums.
    await page.getByRole('link', { name: 'See who has reported' }).click();
    await page.getByRole('heading', { name: 'Weekly fellowship report: who has reported' }).waitFor();
    const week = page.getByRole('region', { name: `Period ${thisWeek()}` });
    await week.getByRole('list', { name: `Reported for ${thisWeek()}` }).getByText(`Fellowship A1 (by ${leader.username})`).waitFor();
    await week.getByRole('list', { name: `Not yet reported for ${thisWeek()}` }).getByText('Fellowship A2').waitFor();
    await expect(week.getByRole('list', { name: `Not yet reported for ${thisWeek()}` }).getByText('Fellowship A1').count()).resolves.toBe(0);
    await expect(week.getByRole('table', { name: `Totals for ${thisWeek()}` }).getByRole('cell').first().textContent()).resolves.toBe('14');
    await checkScreen(page, 'reports-rollup');
    const rollup = (await api(ctx.app, leader.token).get(`/api/reports/templates/${template.id}/rollup`)).json();
    const thisPeriod = rollup.periods.find((p: { period: string }) => p.period === thisWeek());
    expect(thisPeriod).toMatchObject({ submitted: 1, missing: [{ id: tree.fellowshipA2.id, name: 'Fellowship A2' }], sums: { attendance: 14, visitors: 3 } });
    await page.context().close();
  });

  it('an administrator runs a report for a group found by typing among more than 100: its chart, the table with the API\'s numbers, and a CSV named by scope and window', async () => {
    const t = await newTenant(ctx);
    const tree = await newTree(ctx, t);
    // A large church: 110 more groups, all before "Cluster A" by name, which is past the first 100.
    for (let i = 1; i <= 110; i++) await newGroup(ctx, t, { name: `Bethel ${String(i).padStart(3, '0')}` });
    for (const [group, n] of [[tree.fellowshipA1, 3], [tree.fellowshipA2, 5], [tree.clusterA, 1]] as const) {
      for (let i = 0; i < n; i++) await addMembership(ctx, t, group, await newContact(ctx, t, `M${i}`, group.name));
    }
    await newLeaderOf(ctx, t, tree.fellowshipA2);

    const page = await newPage(ctx);
    await signIn(page, t.slug, 'admin', PASSWORD);
    await page.goto('/reports');
    await page.getByRole('link', { name: 'Group health' }).click();
    await page.getByRole('heading', { name: 'Group health' }).waitFor();
    const picker = page.getByRole('combobox', { name: 'Group', exact: true });
    await picker.click();
    // Before typing, the first groups by name, none of them Cluster A; typing part of its name finds it.
    await page.getByRole('option', { name: /^Bethel 001 · / }).waitFor();
    await expect(page.getByRole('option', { name: /^Cluster A/ }).count()).resolves.toBe(0);
    await picker.fill('luster');
    await page.getByRole('option', { name: /^Cluster B · Cluster$/ }).waitFor();
    await checkScreen(page, 'reports-run-group-search');
    await page.getByRole('option', { name: /^Cluster A · Cluster$/ }).click();
    await page.getByLabel('From', { exact: true }).fill('2026-01-01');
    await page.getByLabel('To', { exact: true }).fill('2026-03-31');
    const answered = page.waitForResponse((r) => r.url().includes('/api/reports/group-health') && r.url().includes(`groupId=${tree.clusterA.id}`));
    await page.getByRole('button', { name: 'Run report' }).click();
    const body = await (await answered).json();
    const chart = page.locator('.recharts-surface').first();
    await chart.waitFor();
    await page.getByText('Jan 1, 2026 to Mar 31, 2026 · Cluster A and the groups under it · 3 rows').waitFor();
    await expect(picker.inputValue()).resolves.toBe('Cluster A · Cluster');
    await checkScreen(page, 'reports-run-chart');

    // The table, one click away, has the rows the API answered.
    await page.getByText('Table', { exact: true }).click();
    const table = page.getByRole('table', { name: 'Group health: 3 rows' });
    await table.waitFor();
    const api = body.rows.map((r: { group: { name: string }; members: number; leaders: number }) => [r.group.name, String(r.members), String(r.leaders)]);
    const shown = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(shown.map((r) => [r[0], r[1], r[2]])).toEqual(api);
    expect(api).toEqual(expect.arrayContaining([['Fellowship A1', '3', '0'], ['Fellowship A2', '6', '1']]));
    await checkScreen(page, 'reports-run-table');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('group-health_cluster-a_2026-01-01_to_2026-03-31.csv');
    const csv = fs.readFileSync((await file.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('Group id,Group,Members,Leaders,Joined,Left,Pending requests,Last session on');
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(4);
    await page.getByText('Downloaded group-health_cluster-a_2026-01-01_to_2026-03-31.csv').waitFor();

    // The address keeps the report: opened again (a bookmark), the group is named, not numbered.
    await page.reload();
    await page.getByText('Jan 1, 2026 to Mar 31, 2026 · Cluster A and the groups under it · 3 rows').waitFor();
    await expect.poll(() => picker.inputValue()).toBe('Cluster A');
    await page.context().close();
  });
});
