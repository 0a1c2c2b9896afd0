import { Type, type Static } from 'typebox';
import { DateString, Id, Nullable } from '../../lib/schemas.js';

/** Wire format of GET /api/dashboard (modules-contract §4). */

const Ref = Type.Object({ id: Type.Integer(), name: Type.String() });
const ContactRef = Type.Object({ id: Type.Integer(), firstName: Type.String(), lastName: Type.String() });
const WindowSchema = Type.Object({ from: Type.String(), to: Type.String() });
const ChangePct = Nullable(Type.Number({ description: 'Percent change from the previous period (null when the previous one is zero)' }));
const Occasion = Type.Object({ contact: ContactRef, nextOn: Type.String(), years: Type.Integer() });

export const DashboardQuery = Type.Object({
  groupId: Type.Optional(Id),
  includeDescendants: Type.Optional(Type.Boolean({ default: true })),
  from: Type.Optional(DateString),
  to: Type.Optional(DateString),
});
export type DashboardQuery = Static<typeof DashboardQuery>;

export const DashboardSchema = Type.Object({
  period: WindowSchema,
  previousPeriod: WindowSchema,
  currency: Type.String(),
  people: Type.Optional(Type.Object({
    total: Type.Integer(),
    byStatus: Type.Record(Type.String(), Type.Integer()),
    newInPeriod: Type.Integer(),
    changePct: ChangePct,
  })),
  attendance: Type.Optional(Type.Object({
    averagePresent: Type.Number(),
    changePct: ChangePct,
    firstTimeGuests: Type.Integer(),
    series: Type.Array(Type.Object({ period: Type.String(), present: Type.Integer() })),
  })),
  giving: Type.Optional(Type.Object({
    total: Type.Integer(),
    donors: Type.Integer(),
    averageGift: Type.Integer(),
    changePct: ChangePct,
    byFund: Type.Array(Type.Object({ fund: Ref, amount: Type.Integer() })),
  })),
  groups: Type.Optional(Type.Object({ count: Type.Integer(), members: Type.Integer(), pendingRequests: Type.Integer() })),
  events: Type.Optional(Type.Object({ upcoming: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), startDate: Type.String(), registrations: Type.Integer() })) })),
  tasks: Type.Object({ myOpen: Type.Integer(), myOverdue: Type.Integer(), unassigned: Type.Integer() }),
  care: Type.Optional(Type.Object({ openRequests: Type.Integer() })),
  occasions: Type.Optional(Type.Object({ birthdays: Type.Array(Occasion), anniversaries: Type.Array(Occasion) })),
});
export type Dashboard = Static<typeof DashboardSchema>;
