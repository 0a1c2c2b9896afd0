-- Reserved for the attendance module: hand-written DDL (see src/db/schema/attendance.ts).
SELECT 1;
