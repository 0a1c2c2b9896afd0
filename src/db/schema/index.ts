export * from './tenants.js';
export * from './users.js';
export * from './contacts.js';
export * from './groups.js';
export * from './events.js';
export * from './changes.js';
export * from './finance.js';
export * from './attendance.js';
