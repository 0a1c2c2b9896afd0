import type { FieldChanges } from '../../db/schema/changes.js';
import { CHANGE_TYPE_CATALOG, type ChangeType } from '../../changes/types.js';

/**
 * One line per change for the contact timeline, keyed by change type. A module that lands later
 * (attendance, tasks, finance) gets a sensible line from the generic fallback (the type's
 * description, with the name of what it concerns when data carries one) and may add its own
 * entry here. Summaries read only `data` and `changes`, which every module fills by the
 * convention of src/changes (ids, names, statuses; never secrets).
 */
export interface SummaryInput {
  type: ChangeType;
  data: Record<string, unknown>;
  changes: FieldChanges | null;
}

type Summarize = (c: SummaryInput) => string;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/** The name of what a change concerns: an event, a service, a group, a task … whichever data names. */
const subject = (d: Record<string, unknown>): string | undefined =>
  text(d.eventName) ?? text(d.serviceName) ?? text(d.sessionName) ?? text(d.groupName) ?? text(d.title) ?? text(d.fundName) ?? text(d.name);

const on = (d: Record<string, unknown>, prefix: string, fallback: string) => {
  const name = subject(d);
  return name ? `${prefix}${name}` : fallback;
};

const fieldList = (changes: FieldChanges | null) => {
  const keys = Object.keys(changes ?? {}).map((k) => k.replace(/^(person|company)\./, ''));
  return keys.length ? ` (${[...new Set(keys)].join(', ')})` : '';
};

const request = (d: Record<string, unknown>) => `${text(d.type) ?? 'Pastoral'} request`;

export const SUMMARIES: Partial<Record<ChangeType, Summarize>> = {
  'contact.created': ({ data }) => (data.imported ? 'Added to the directory by an import' : 'Added to the directory'),
  'contact.updated': ({ changes }) => `Details updated${fieldList(changes)}`,
  'contact.status_changed': ({ data }) => `Status changed from ${text(data.from) ?? '?'} to ${text(data.to) ?? '?'}`,
  'contact.deleted': () => 'Removed from the directory',
  'contact.erased': () => 'Personal data erased',
  'contact.merged': () => 'Merged with a duplicate record',
  'relationship.created': ({ data }) => `Relationship added: ${text(data.relationshipType) ?? 'relative'}`,
  'relationship.deleted': ({ data }) => `Relationship removed: ${text(data.relationshipType) ?? 'relative'}`,
  'request.created': ({ data }) => `${request(data)} made`,
  'request.updated': ({ data, changes }) =>
    data.deleted ? `${request(data)} deleted` : changes?.status ? `${request(data)} marked ${text(changes.status.to) ?? ''}`.trim() : `${request(data)} updated`,
  'membership.created': ({ data }) => `Joined ${subject(data) ?? 'a group'} as ${text(data.role) ?? 'Member'}`,
  'membership.updated': ({ data, changes }) => {
    const group = subject(data) ?? 'a group';
    if (changes?.isActive) return changes.isActive.to ? `Active again in ${group}` : `Became inactive in ${group}`;
    if (changes?.role) return `Now ${text(changes.role.to) ?? text(data.role) ?? 'Member'} in ${group}`;
    return `Membership in ${group} changed`;
  },
  'membership.deleted': ({ data }) => `Left ${subject(data) ?? 'a group'}`,
  'membership_request.created': ({ data }) => `Asked to join ${subject(data) ?? 'a group'}`,
  'membership_request.approved': ({ data }) => `Request to join ${subject(data) ?? 'a group'} approved`,
  'membership_request.rejected': ({ data }) => `Request to join ${subject(data) ?? 'a group'} declined`,
  'event.activity_recorded': ({ data }) => on(data, `${text(data.activityType) ?? 'Activity'} at `, `${text(data.activityType) ?? 'Activity'} recorded`),
  'registration.created': ({ data }) => on(data, 'Registered for ', 'Registered for an event'),
  'registration.deleted': ({ data }) => on(data, 'Registration cancelled: ', 'Registration cancelled'),
  'attendance.recorded': ({ data }) => on(data, 'Attended ', 'Attended'),
  'attendance.first_visit': ({ data }) => on(data, 'First visit: ', 'First visit'),
  'attendance.absent': ({ data }) => on(data, 'Missed the last 3 sessions of ', 'Missed the last 3 sessions'),
  'checkin.created': ({ data }) => on(data, 'Checked in to ', 'Checked in'),
  'checkin.checked_out': ({ data }) => on(data, 'Checked out of ', 'Checked out'),
  'contribution.created': ({ data }) => on(data, 'Gave to ', 'Contribution recorded'),
  'contribution.updated': () => 'Contribution changed',
  'contribution.deleted': () => 'Contribution deleted',
  'contribution.refunded': () => 'Contribution refunded',
  'pledge.created': ({ data }) => on(data, 'Pledged to ', 'Pledge made'),
  'task.created': ({ data }) => on(data, 'Task created: ', 'Task created'),
  'task.assigned': ({ data }) => on(data, 'Task assigned: ', 'Task assigned'),
  'task.updated': ({ data }) => on(data, 'Task updated: ', 'Task updated'),
  'task.completed': ({ data }) => on(data, 'Task completed: ', 'Task completed'),
  'message.sent': ({ data }) => on(data, 'Sent a message: ', 'Sent a message'),
  'message.failed': ({ data }) => on(data, 'A message could not be delivered: ', 'A message could not be delivered'),
  'user.created': ({ data }) => (data.registered ? 'Registered a user account' : 'User account created'),
  'user.updated': ({ data, changes }) => (data.credentialChanged ? 'Password changed' : `User account changed${fieldList(changes)}`),
  'user.disabled': ({ data }) => (data.deleted ? 'User account deleted' : 'User account disabled'),
};

const DESCRIPTIONS = new Map<string, string>(CHANGE_TYPE_CATALOG.map((c) => [c.type, c.description]));

/** The summary for any change: its table entry, else the type's description (plus what it concerns). */
export function summarize(change: SummaryInput): string {
  const own = SUMMARIES[change.type];
  if (own) return own(change);
  const description = DESCRIPTIONS.get(change.type) ?? change.type;
  const name = subject(change.data);
  return name ? `${description}: ${name}` : description;
}
