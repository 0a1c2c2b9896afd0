-- Reserved for the privacy module: hand-written DDL (see src/db/schema/privacy.ts).
SELECT 1;
