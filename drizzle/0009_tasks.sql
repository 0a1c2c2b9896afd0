-- Reserved for the tasks module: hand-written DDL (see src/db/schema/tasks.ts).
SELECT 1;
