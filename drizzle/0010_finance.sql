-- Reserved for the finance module: hand-written DDL (see src/db/schema/finance.ts).
SELECT 1;
