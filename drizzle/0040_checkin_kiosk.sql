-- Households issue (modules-contract §0, §8) and the trust issue's check-in accounts.
-- 1. The seeded Check-in role holds checkin:write alone: a kiosk finds families through the check-in
--    lookup (GET /api/attendance/checkins/lookup) and reaches only the people it returns, so it needs
--    no attendance:read (which lists every check-in and its security code) and no contacts:read.
--    Existing system Check-in roles of every tenant are migrated; roles made by a church keep theirs.
UPDATE "roles" SET "permissions" = ARRAY['checkin:write'], "description" = 'A kiosk volunteer: family lookup, check-in, check-out and labels'
WHERE "is_system" AND "name" = 'Check-in';--> statement-breakpoint
-- 2. The lookup's last-name prefix, accents folded (search_fold, 0011), case-insensitive: a range scan
--    of this index (text_pattern_ops: byte order, so a prefix is one range whatever the collation).
CREATE INDEX IF NOT EXISTS "persons_last_name_fold_idx" ON "persons" USING btree ("tenant_id", search_fold("last_name") text_pattern_ops);
