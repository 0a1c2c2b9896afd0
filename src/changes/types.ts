/**
 * Every change type of modules-contract §7, with what it means: the recorder accepts only these,
 * webhooks list them (GET /api/notifications/webhooks/events), automations trigger on them.
 * The entity type of a change is its type's prefix (`membership_request.created` → `membership_request`).
 */
export const CHANGE_TYPE_CATALOG = [
  { type: 'contact.created', description: 'A contact was created' },
  { type: 'contact.updated', description: 'A contact was changed' },
  { type: 'contact.deleted', description: 'A contact was deleted' },
  { type: 'contact.status_changed', description: "A contact's status changed" },
  { type: 'contact.erased', description: "A contact's personal data was erased" },
  { type: 'contact.merged', description: 'Contacts were merged into this one' },
  { type: 'relationship.created', description: 'A relationship between contacts was added' },
  { type: 'relationship.deleted', description: 'A relationship between contacts was removed' },
  { type: 'request.created', description: 'A pastoral request was made' },
  { type: 'request.updated', description: 'A pastoral request was changed' },
  { type: 'group.created', description: 'A group was created' },
  { type: 'group.updated', description: 'A group was changed' },
  { type: 'group.deleted', description: 'A group was deleted' },
  { type: 'membership.created', description: 'Someone joined a group' },
  { type: 'membership.updated', description: 'A membership changed (role, active)' },
  { type: 'membership.deleted', description: 'Someone left a group' },
  { type: 'membership_request.created', description: 'Someone asked to join a group' },
  { type: 'membership_request.approved', description: 'A membership request was approved' },
  { type: 'membership_request.rejected', description: 'A membership request was rejected' },
  { type: 'event.created', description: 'An event was created' },
  { type: 'event.updated', description: 'An event was changed' },
  { type: 'event.deleted', description: 'An event was deleted' },
  { type: 'registration.created', description: 'Someone was registered for an event' },
  { type: 'registration.deleted', description: 'A registration was removed' },
  { type: 'event.activity_recorded', description: 'An event activity (salvation, baptism …) was recorded' },
  { type: 'attendance.recorded', description: 'Someone was recorded present at a session' },
  { type: 'attendance.first_visit', description: "A contact's first attendance ever" },
  { type: 'attendance.absent', description: 'A member missed their group’s last 3 sessions' },
  { type: 'checkin.created', description: 'Someone was checked in' },
  { type: 'checkin.checked_out', description: 'Someone was checked out' },
  { type: 'contribution.created', description: 'A contribution was recorded' },
  { type: 'contribution.updated', description: 'A contribution was changed' },
  { type: 'contribution.deleted', description: 'A contribution was deleted' },
  { type: 'contribution.refunded', description: 'A contribution was refunded, in whole or in part' },
  { type: 'batch.closed', description: 'A batch was closed' },
  { type: 'batch.reopened', description: 'A batch was reopened' },
  { type: 'pledge.created', description: 'A pledge was made' },
  { type: 'task.created', description: 'A task was created' },
  { type: 'task.assigned', description: 'A task was assigned to someone' },
  { type: 'task.updated', description: 'A task was changed' },
  { type: 'task.completed', description: 'A task was completed' },
  { type: 'report.submitted', description: 'A group report was submitted' },
  { type: 'report.missing', description: 'A group has not submitted its weekly report' },
  { type: 'message.sent', description: 'A message was sent' },
  { type: 'message.failed', description: 'A message could not be sent' },
  { type: 'user.created', description: 'A user account was created' },
  { type: 'user.updated', description: 'A user account was changed' },
  { type: 'user.disabled', description: 'A user account was disabled' },
  { type: 'role.created', description: 'A role was created' },
  { type: 'role.updated', description: 'A role was changed' },
  { type: 'role.deleted', description: 'A role was deleted' },
  { type: 'webhook.test', description: 'A test delivery asked for by an administrator' },
] as const;

export type ChangeType = (typeof CHANGE_TYPE_CATALOG)[number]['type'];

export const CHANGE_TYPES: readonly ChangeType[] = CHANGE_TYPE_CATALOG.map((c) => c.type);

export function isChangeType(value: string): value is ChangeType {
  return (CHANGE_TYPES as readonly string[]).includes(value);
}

/** `membership_request.created` → `membership_request`. */
export function entityTypeOf(type: ChangeType): string {
  return type.slice(0, type.indexOf('.'));
}
