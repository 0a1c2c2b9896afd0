import { renderStatementPdf } from '../src/modules/finance/statement.pdf.js';
import { statementsFromRows, type StatementRow } from '../src/modules/finance/statements.repository.js';
import type { Dataset } from './generate.js';
import type { HttpRequest } from './load.js';

export interface Scenario {
  id: string;
  title: string;
  /** Which user runs it: the tenant admin (hierarchy:all) or the Zone leader. */
  as: 'admin' | 'leader';
  kind: 'read' | 'write';
  /** Target ratio to the raw ceiling (reads only). */
  target?: number;
  /** The p50 (ms) the scenario's issue sets on the large tenant (modules). */
  p50Target?: number;
  request: (ds: Dataset) => HttpRequest | (() => HttpRequest);
  /**
   * The raw ceiling's answer made from the rows of the replayed statements (one array per statement),
   * for a scenario whose response is rendered from its rows (f3r: a PDF); by default the rows as JSON.
   */
  rawBody?: (results: unknown[][]) => Promise<{ type: string; body: Buffer }>;
  /** Prepares what the scenario reads, through the API as its user, before its check request (f5: a household of donors). */
  setup?: (ds: Dataset, call: (req: HttpRequest) => Promise<{ status: number; body: unknown }>) => Promise<void>;
}

/** Issue 20's common name: a fragment in about 6% of the generated contacts (Johnson, Nelson, Hansen & Sons, ...). */
const COMMON_NAME = 'son';

const q = (params: Record<string, string | number>) => '?' + new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

/** Scenarios 1–10 of issue 7 (11 login and 12 import are measured separately in run.ts). */
export const SCENARIOS: Scenario[] = [
  { id: '1', title: 'contacts list, page 1', as: 'admin', kind: 'read', target: 0.7, request: () => ({ method: 'GET', path: '/api/crm/contacts' }) },
  { id: '2a', title: 'contacts q search: name fragment', as: 'admin', kind: 'read', target: 0.7, request: (ds) => ({ method: 'GET', path: `/api/crm/contacts${q({ q: ds.nameFragment })}` }) },
  { id: '2b', title: 'contacts q search: phone digits', as: 'admin', kind: 'read', target: 0.7, request: (ds) => ({ method: 'GET', path: `/api/crm/contacts${q({ q: ds.phoneFragment })}` }) },
  { id: '2c', title: 'contacts q search: common name fragment "son" (~6% of contacts)', as: 'admin', kind: 'read', target: 0.7, request: () => ({ method: 'GET', path: `/api/crm/contacts${q({ q: COMMON_NAME })}` }) },
  { id: '3', title: 'contact single read (all nested arrays)', as: 'admin', kind: 'read', target: 0.5, request: (ds) => ({ method: 'GET', path: `/api/crm/contacts/${ds.sampleContactId}` }) },
  { id: '4', title: 'groups list as a Zone leader', as: 'leader', kind: 'read', target: 0.7, request: () => ({ method: 'GET', path: '/api/groups' }) },
  { id: '5', title: 'groups ancestorId subtree of a Network', as: 'admin', kind: 'read', target: 0.7, request: (ds) => ({ method: 'GET', path: `/api/groups${q({ ancestorId: ds.networkId })}` }) },
  { id: '6', title: 'group single read (children, members)', as: 'admin', kind: 'read', target: 0.5, request: (ds) => ({ method: 'GET', path: `/api/groups/${ds.clusterId}` }) },
  { id: '7', title: 'event single read (1,000 registrations)', as: 'admin', kind: 'read', target: 0.5, request: (ds) => ({ method: 'GET', path: `/api/events/${ds.bigEventId}` }) },
  { id: '8', title: 'events list, one-month window', as: 'admin', kind: 'read', target: 0.7, request: (ds) => ({ method: 'GET', path: `/api/events${q(ds.eventWindow)}` }) },
  { id: '9', title: 'POST contact', as: 'admin', kind: 'write', request: () => newContactRequest },
  { id: '10', title: 'POST attendance, 100 contacts', as: 'admin', kind: 'write', request: (ds) => attendanceRequests(ds) },
];

/** The year the generator fills (bench/gen-modules.ts): reports and summaries look at it. */
const YEAR = { from: '2025-01-05', to: '2025-12-31' };

/**
 * The modules' read paths named in issues 11–17: `p50Target` is the p50 (ms) each issue sets on the large
 * tenant (issue 11: c1; 12: a1–a4; 13: t1, t2; 14: f1–f4; 15: r1–r5; 16: s1–s3; 17: n1); `target` the ratio to the raw ceiling.
 */
export const MODULE_SCENARIOS: Scenario[] = [
  { id: 'a1', title: 'attendance records feed, page 1', as: 'admin', kind: 'read', target: 0.7, p50Target: 15, request: () => ({ method: 'GET', path: '/api/attendance/records' }) },
  { id: 'a2', title: 'attendance summary of a Zone, 52 weeks', as: 'admin', kind: 'read', target: 0.7, p50Target: 30, request: (ds) => ({ method: 'GET', path: `/api/attendance/summary${q({ groupId: ds.zoneId, ...YEAR })}` }) },
  { id: 'a3', title: 'absentees of a Zone', as: 'admin', kind: 'read', target: 0.7, p50Target: 50, request: (ds) => ({ method: 'GET', path: `/api/attendance/absentees${q({ groupId: ds.zoneId })}` }) },
  // The daily absence job reads the whole church this way (src/modules/attendance/absence.schedule.ts).
  { id: 'a5', title: 'absentees of the whole church, page 1', as: 'admin', kind: 'read', target: 0.7, request: () => ({ method: 'GET', path: '/api/attendance/absentees' }) },
  { id: 'a4', title: 'check-in of a family of 4', as: 'admin', kind: 'write', p50Target: 15, request: (ds) => checkinRequests(ds) },
  // Issue 30: a kiosk's family lookup by the start of a last name (households of ~60% of the people; older data sets: nameFragment's start).
  { id: 'h1', title: 'family lookup by last name', as: 'admin', kind: 'read', target: 0.7, p50Target: 10, request: (ds) => ({ method: 'GET', path: `/api/attendance/checkins/lookup${q({ q: ds.lookupPrefix ?? ds.nameFragment.slice(0, 3) })}` }) },
  { id: 't1', title: 'tasks assignee=me&overdue=true', as: 'admin', kind: 'read', target: 0.7, p50Target: 15, request: () => ({ method: 'GET', path: `/api/tasks${q({ assignee: 'me', overdue: 'true' })}` }) },
  { id: 't2', title: 'board of a pipeline with 5,000 cards', as: 'admin', kind: 'read', target: 0.7, p50Target: 30, request: (ds) => ({ method: 'GET', path: `/api/tasks/pipelines/${ds.pipelineId}/board` }) },
  { id: 'f1', title: 'contributions list, page 1', as: 'admin', kind: 'read', target: 0.7, p50Target: 15, request: () => ({ method: 'GET', path: '/api/finance/contributions' }) },
  { id: 'f2', title: "one donor's statement, JSON", as: 'admin', kind: 'read', target: 0.5, p50Target: 20, request: (ds) => ({ method: 'GET', path: `/api/finance/statements/${ds.donorContactId}${q(YEAR)}` }) },
  { id: 'f3', title: "one donor's statement, PDF", as: 'admin', kind: 'read', target: 0.5, p50Target: 100, request: (ds) => ({ method: 'GET', path: `/api/finance/statements/${ds.donorContactId}${q({ ...YEAR, format: 'pdf' })}` }) },
  // f3 against a ceiling that also renders: the replayed rows turned into the statement and the PDF by the
  // service's own mapping and renderer (the ceiling's body is the service's body), so its ratio is the
  // framework, auth and transaction against everything else, as the JSON reads' ratios are.
  { id: 'f3r', title: "one donor's statement, PDF, against a ceiling rendering the same PDF", as: 'admin', kind: 'read', target: 0.5, p50Target: 100, request: (ds) => ({ method: 'GET', path: `/api/finance/statements/${ds.donorContactId}${q({ ...YEAR, format: 'pdf' })}` }), rawBody: statementPdf },
  // Issue 30: a household's statement over its members' gifts (f2's shape and target, which issue 30 does not change).
  {
    id: 'f5', title: "one household's statement (2 donors), JSON", as: 'admin', kind: 'read', target: 0.5, p50Target: 20, setup: donorHousehold,
    request: () => ({ method: 'GET', path: `/api/finance/statements/households/${benchHouseholdId}${q(YEAR)}` }),
  },
  { id: 'f4', title: 'giving summary by month over a year', as: 'admin', kind: 'read', target: 0.7, p50Target: 100, request: () => ({ method: 'GET', path: `/api/finance/summary${q({ ...YEAR, interval: 'month' })}` }) },
  { id: 'r1', title: 'dashboard as the admin', as: 'admin', kind: 'read', target: 0.5, p50Target: 50, request: () => ({ method: 'GET', path: `/api/dashboard${q({ from: '2025-12-01', to: '2025-12-28' })}` }) },
  { id: 'r2', title: 'dashboard as a Zone leader', as: 'leader', kind: 'read', target: 0.5, p50Target: 50, request: () => ({ method: 'GET', path: `/api/dashboard${q({ from: '2025-12-01', to: '2025-12-28' })}` }) },
  { id: 'r3', title: 'report attendance-trend, whole church, 52 weeks', as: 'admin', kind: 'read', target: 0.7, p50Target: 50, request: () => ({ method: 'GET', path: `/api/reports/attendance-trend${q(YEAR)}` }) },
  { id: 'r4', title: 'report retention-funnel over a year', as: 'admin', kind: 'read', target: 0.7, p50Target: 100, request: () => ({ method: 'GET', path: `/api/reports/retention-funnel${q(YEAR)}` }) },
  { id: 'r5', title: 'report giving-summary over a year', as: 'admin', kind: 'read', target: 0.7, p50Target: 100, request: () => ({ method: 'GET', path: `/api/reports/giving-summary${q(YEAR)}` }) },
  { id: 's1', title: 'search box: name fragment', as: 'admin', kind: 'read', target: 0.7, p50Target: 30, request: (ds) => ({ method: 'GET', path: `/api/search${q({ q: ds.nameFragment })}` }) },
  { id: 's2', title: 'search box: phone digits', as: 'admin', kind: 'read', target: 0.7, p50Target: 30, request: (ds) => ({ method: 'GET', path: `/api/search${q({ q: ds.phoneFragment })}` }) },
  { id: 's3', title: 'advanced search, 4 conditions', as: 'admin', kind: 'read', target: 0.7, p50Target: 50, request: (ds) => advancedSearch(ds) },
  { id: 's4', title: 'search box: common name fragment "son" (~6% of contacts)', as: 'admin', kind: 'read', target: 0.7, p50Target: 30, request: () => ({ method: 'GET', path: `/api/search${q({ q: COMMON_NAME })}` }) },
  { id: 'n1', title: 'unread notification count', as: 'admin', kind: 'read', target: 0.5, p50Target: 5, request: () => ({ method: 'GET', path: '/api/notifications/unread-count' }) },
  { id: 'c1', title: 'audit of one contact (1M changes in the tenant)', as: 'admin', kind: 'read', target: 0.7, p50Target: 10, request: (ds) => ({ method: 'GET', path: `/api/audit${q({ entityType: 'contact', entityId: ds.auditContactId })}` }) },
];

let benchHouseholdId: number | undefined;

/**
 * f5's household: two adjacent donors (the generator gives from `donorContactId` on, bench/gen-modules.ts)
 * put in a giving-together household, or the household one of them already belongs to (a generated one, or
 * the one an earlier run on --reuse data made: the 409 names it). A pair with a Company is skipped.
 */
async function donorHousehold(ds: Dataset, call: (req: HttpRequest) => Promise<{ status: number; body: unknown }>): Promise<void> {
  for (let head = ds.donorContactId; head < ds.donorContactId + 40; head += 2) {
    const members = [{ contactId: head, role: 'Head' }, { contactId: head + 1, role: 'Spouse' }];
    const res = await call({ method: 'POST', path: '/api/crm/households', body: { givingTogether: true, members } });
    const body = res.body as { id?: number; message?: string };
    if (res.status === 201 && typeof body.id === 'number') {
      benchHouseholdId = body.id;
      return;
    }
    const existing = res.status === 409 ? /already belongs to household (\d+)/.exec(body.message ?? '') : null;
    if (existing) {
      benchHouseholdId = Number(existing[1]);
      return;
    }
  }
  throw new Error('f5: no household of donors could be made');
}

/** The statement of f3r's replayed rows (its one statement: loadStatements'), rendered as the service renders it. */
async function statementPdf(results: unknown[][]): Promise<{ type: string; body: Buffer }> {
  const [statement] = statementsFromRows(results[results.length - 1] as StatementRow[], YEAR).values();
  if (!statement) throw new Error('f3r: the replay returned no statement');
  return { type: 'application/pdf', body: await renderStatementPdf(statement) };
}

/** Issue 16's advanced search: age between, memberOf a Zone, attended within (the generated year is 2025: 400 days), city. */
function advancedSearch(ds: Dataset): HttpRequest {
  return {
    method: 'POST',
    path: '/api/search/contacts',
    body: {
      match: 'all',
      conditions: [
        { field: 'age', operator: 'between', value: [18, 70] },
        { field: 'memberOf', operator: 'eq', value: ds.zoneId },
        { field: 'attendedWithinDays', operator: 'lt', value: 400 },
        { field: 'city', operator: 'contains', value: 'a' },
      ],
    },
  };
}

/** Each request checks a different family of 4 into one session. */
function checkinRequests(ds: Dataset): () => HttpRequest {
  const span = ds.contactIds.last - ds.contactIds.first + 1;
  // Each bench invocation starts at a random family: one still checked in from an earlier run is 409.
  let i = Math.floor((Math.random() * span) / 4);
  return () => {
    const start = ds.contactIds.first + ((++i * 4) % Math.max(4, span - 4));
    return { method: 'POST', path: '/api/attendance/checkins', body: { sessionId: ds.checkinSessionId, contactIds: [start, start + 1, start + 2, start + 3] } };
  };
}

const runId = Date.now().toString(36);
let written = 0;

function newContactRequest(): HttpRequest {
  const n = ++written;
  return {
    method: 'POST',
    path: '/api/crm/contacts',
    body: {
      category: 'Person',
      person: { firstName: 'Bench', lastName: `Writer ${runId} ${n}`, gender: n % 2 ? 'Male' : 'Female', dateOfBirth: '1990-05-17' },
      emails: [{ value: `writer.${runId}.${n}@bench.example.net`, isPrimary: true }],
      phones: [{ value: `+1 555 ${String(n).padStart(7, '0')}`, isPrimary: true }],
      addresses: [{ street: `${n} Bench Street`, city: 'Springfield', country: 'United States', isPrimary: true }],
    },
  };
}

/** Each request: a different event (round robin) and a run of 100 of the tenant's contacts. */
function attendanceRequests(ds: Dataset): () => HttpRequest {
  let i = 0;
  const span = ds.contactIds.last - ds.contactIds.first + 1;
  const count = Math.min(100, span);
  return () => {
    i++;
    const eventId = ds.eventIds[1 + (i % (ds.eventIds.length - 1))];
    const start = ds.contactIds.first + ((i * 7_919) % Math.max(1, span - count + 1));
    return { method: 'POST', path: `/api/events/${eventId}/attendance`, body: { contactIds: Array.from({ length: count }, (_, k) => start + k) } };
  };
}

/** Scenario 12: a 1,000-row import of new people (unique emails per import). */
export function importRequest(batch: number, rows = 1_000): HttpRequest {
  const contacts = Array.from({ length: rows }, (_, i) => ({
    firstName: `Import${batch}`,
    lastName: `Row ${runId} ${i}`,
    email: `import.${runId}.${batch}.${i}@bench.example.net`,
    phone: `+44 20 ${String(batch).padStart(3, '0')}${String(i).padStart(5, '0')}`,
    gender: i % 2 ? 'Male' : 'Female',
  }));
  return { method: 'POST', path: '/api/crm/contacts/import', body: { contacts } };
}

export function loginRequest(ds: Dataset, as: 'admin' | 'leader' = 'admin'): HttpRequest {
  return { method: 'POST', path: '/api/auth/login', body: { churchName: ds.slug, username: as === 'admin' ? ds.adminUsername : ds.zoneLeaderUsername, password: ds.password } };
}
