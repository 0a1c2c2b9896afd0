/** Dataset sizes of the benchmark (issue 7). Each main tenant shares its database with `otherTenants` tenants of `otherSize`. */
export interface SizeSpec {
  contacts: number;
  groups: number;
  memberships: number;
  events: number;
  attendance: number;
  /** Registrations of the one "big" event read by scenario 7. */
  bigEventRegistrations: number;
  /** Registrations of every other event. */
  registrationsPerEvent: number;
  /** Tasks, besides the open tasks of the pipeline's cards. */
  tasks: number;
  /** Active cards of the New people pipeline (the board scenario). */
  pipelineCards: number;
  /** Share of the contacts who give every week of the generated year. */
  givingShare: number;
  /** Rows of the change feed (the audit scenario). */
  changes: number;
  /** Share of the people in households (bench/gen-households.ts). */
  householdShare: number;
}

export const SIZES = {
  toy: { contacts: 60, groups: 20, memberships: 80, events: 6, attendance: 120, bigEventRegistrations: 25, registrationsPerEvent: 3, tasks: 40, pipelineCards: 10, givingShare: 0.2, changes: 100, householdShare: 0.6 },
  small: { contacts: 2_000, groups: 300, memberships: 2_400, events: 80, attendance: 8_000, bigEventRegistrations: 200, registrationsPerEvent: 5, tasks: 2_000, pipelineCards: 200, givingShare: 0.1, changes: 10_000, householdShare: 0.6 },
  /** Issue 20's side-by-side size (20,000 people, 1,000 groups, 500 events); the modules' data at the small size's proportions, so it loads fast. */
  medium: { contacts: 20_000, groups: 1_000, memberships: 24_000, events: 500, attendance: 80_000, bigEventRegistrations: 1_000, registrationsPerEvent: 10, tasks: 20_000, pipelineCards: 2_000, givingShare: 0.1, changes: 100_000, householdShare: 0.6 },
  large: { contacts: 50_000, groups: 5_000, memberships: 60_000, events: 2_000, attendance: 200_000, bigEventRegistrations: 1_000, registrationsPerEvent: 10, tasks: 100_000, pipelineCards: 5_000, givingShare: 0.6, changes: 1_000_000, householdShare: 0.6 },
  huge: { contacts: 200_000, groups: 20_000, memberships: 240_000, events: 8_000, attendance: 800_000, bigEventRegistrations: 1_000, registrationsPerEvent: 10, tasks: 400_000, pipelineCards: 20_000, givingShare: 0.6, changes: 4_000_000, householdShare: 0.6 },
} satisfies Record<string, SizeSpec>;

export type SizeName = keyof typeof SIZES;

export function isSizeName(name: string): name is SizeName {
  return Object.hasOwn(SIZES, name);
}

/** The 6 levels of the hierarchy: how many groups each level gets out of `total` (level 1 is the one church). */
export function levelCounts(total: number): number[] {
  const fractions = [0, 0.001, 0.005, 0.03, 0.15];
  const counts = fractions.map((f, i) => (i === 0 ? 1 : Math.max(1, Math.round(total * f))));
  const upper = counts.reduce((a, b) => a + b, 0);
  counts.push(Math.max(1, total - upper));
  return counts;
}
