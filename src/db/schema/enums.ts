/** Closed value sets of the contract (api-contract.md), defined once for the schema, validation and docs. */
export const CONTACT_CATEGORIES = ['Person', 'Company'] as const;
export const CONTACT_STATUSES = ['Active', 'Inactive', 'MovedAway', 'TransferredToAnotherChurch', 'Deceased'] as const;
export const GENDERS = ['Male', 'Female'] as const;
export const CIVIL_STATUSES = ['Single', 'Married', 'Separated', 'Divorced', 'Widowed'] as const;
export const OCCASION_TYPES = ['Birthday', 'Anniversary', 'Baptism', 'Salvation', 'Dedication', 'Other'] as const;
export const IDENTIFICATION_TYPES = ['NationalId', 'Passport', 'DrivingPermit', 'Other'] as const;
export const RELATIONSHIP_TYPES = [
  'Spouse', 'Parent', 'Child', 'Sibling', 'Guardian', 'Ward', 'Grandparent', 'Grandchild',
  'Relative', 'Friend', 'Employer', 'Employee', 'Other',
] as const;
export const REQUEST_TYPES = ['Prayer', 'Counseling', 'Visitation', 'Welfare', 'Thanksgiving', 'Other'] as const;
export const REQUEST_STATUSES = ['Open', 'InProgress', 'Resolved'] as const;
export const GROUP_PRIVACIES = ['Public', 'Private'] as const;
export const MEMBERSHIP_ROLES = ['Leader', 'Assistant', 'Member'] as const;
export const MEMBERSHIP_REQUEST_STATUSES = ['Pending', 'Approved', 'Rejected'] as const;
export const ACTIVITY_TYPES = ['Salvation', 'Rededication', 'Baptism', 'Healing', 'Testimony', 'FirstTimeGuest', 'Other'] as const;
export const USER_STATUSES = ['Active', 'Disabled'] as const;

export type ContactCategory = (typeof CONTACT_CATEGORIES)[number];
export type ContactStatus = (typeof CONTACT_STATUSES)[number];
export type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];
export type UserStatus = (typeof USER_STATUSES)[number];
