-- Reserved for the reports module: hand-written DDL (see src/db/schema/reports.ts).
SELECT 1;
