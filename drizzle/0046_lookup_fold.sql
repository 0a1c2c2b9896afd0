-- The check-in family lookup (issue 30) walks last names by folded prefix. Its index was on the
-- expression search_fold(last_name), but under row level security the planner may not use a condition
-- on that expression as an index condition (lower() and translate() are not leakproof, so the condition
-- must wait until the tenant policy has passed): at large it read all 58,000 persons of the tenant (a
-- sequential scan, 9 ms of the statement's 15). A stored column holds the folded name instead; a
-- condition on a plain column with text_pattern_ops operators (leakproof) is an index condition.
ALTER TABLE "persons" ADD COLUMN IF NOT EXISTS "last_name_fold" text GENERATED ALWAYS AS (search_fold("last_name")) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "persons_last_name_fold_col_idx" ON "persons" USING btree ("tenant_id", "last_name_fold" text_pattern_ops);
--> statement-breakpoint
DROP INDEX IF EXISTS "persons_last_name_fold_idx";
