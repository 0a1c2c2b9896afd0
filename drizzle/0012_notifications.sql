-- Reserved for the notifications module: hand-written DDL (see src/db/schema/notifications.ts).
SELECT 1;
