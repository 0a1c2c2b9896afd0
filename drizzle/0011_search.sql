-- Reserved for the search module: hand-written DDL (see src/db/schema/search.ts).
SELECT 1;
