import { withTenant, type Db } from '../../db/client.js';
import { addDays, periodStart, todayIn } from '../../lib/periods.js';
import { loadTenantSettings } from '../../tenancy/settings.js';
import type { DemoContext } from '../module.js';
import { recordPresence } from './records.service.js';
import { insertService } from './services.repository.js';
import { insertSession, replaceHeadcounts } from './sessions.repository.js';

const WEEKS = 8;

/**
 * The demo church's attendance: a Sunday service and the two fellowships' weekly meetings over the
 * last 8 weeks up to today, with records (through the one write path, so first visits and changes are real),
 * headcounts, a few first-time guests, and one member who stopped coming (an absentee).
 */
export async function seedAttendanceDemo(db: Db, demo: DemoContext): Promise<void> {
  await withTenant(db, demo.tenantId, async (tx) => {
    const actor = { tenantId: demo.tenantId, userId: demo.adminUserId };
    const { timeZone } = await loadTenantSettings(tx, demo.tenantId);
    const today = todayIn(timeZone);
    const thisSunday = periodStart(today, 'week');
    const church = demo.groups.get('Grace Church');
    const riverside = demo.groups.get('Riverside Fellowship');
    const hillside = demo.groups.get('Hillside Fellowship');
    if (!church || !riverside || !hillside) return;
    const [p, more] = [demo.people, demo.morePeople];
    const plans = [
      { groupId: church, name: 'Sunday Service', dayOfWeek: 0, startTime: '09:30', regulars: [...p, ...more.slice(0, 8)], guests: more.slice(8) },
      { groupId: riverside, name: 'Riverside Weekly Meeting', dayOfWeek: 3, startTime: '19:00', regulars: [p[1], p[2], p[3], more[0], more[2], more[4], more[6]], guests: [] },
      { groupId: hillside, name: 'Hillside Weekly Meeting', dayOfWeek: 4, startTime: '19:00', regulars: [p[4], p[5], more[1], more[3], more[5], more[7]], guests: [] },
    ];
    for (const plan of plans) {
      const serviceId = await insertService(tx, demo.tenantId, {
        name: plan.name, groupId: plan.groupId, dayOfWeek: plan.dayOfWeek, startTime: plan.startTime, headcountTypes: ['Adults', 'Children'],
      });
      // The last WEEKS weeks up to today (this week's meeting once its day has come), so the demo is
      // alive whenever it is seeded; this Sunday's service session is opened ahead, empty, when
      // Sunday is still to come.
      for (let week = WEEKS - 1; week >= 0; week--) {
        const date = addDays(thisSunday, plan.dayOfWeek - 7 * week);
        if (date > today) continue;
        const { id } = await insertSession(tx, demo.tenantId, { date, source: 'Service', serviceId, groupId: plan.groupId, eventId: null });
        // Everyone misses now and then; the last regular of each meeting stopped coming 4 weeks ago.
        const present = plan.regulars.filter((_, i) => (i + week) % 5 !== 0 && !(i === plan.regulars.length - 1 && week < 4));
        const session = { id, date, serviceId, groupId: plan.groupId, eventId: null };
        await recordPresence(tx, actor, session, present, 'Regular');
        // A first-time guest in each of the last weeks.
        const guest = plan.guests[week];
        if (guest !== undefined) await recordPresence(tx, actor, session, [guest], 'Guest');
        if (plan.groupId === church) await replaceHeadcounts(tx, demo.tenantId, id, [{ type: 'Adults', count: 60 + 3 * (WEEKS - week) }, { type: 'Children', count: 18 + (week % 3) }]);
      }
      const nextSunday = addDays(thisSunday, 7);
      if (plan.groupId === church && thisSunday < today) {
        await insertSession(tx, demo.tenantId, { date: nextSunday, source: 'Service', serviceId, groupId: plan.groupId, eventId: null });
      }
    }
  });
}
