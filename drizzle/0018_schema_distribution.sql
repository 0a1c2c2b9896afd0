-- Ready to distribute by tenant_id (issue 19): every unique index of a tenant table includes
-- tenant_id, and membership requests reference the handling user. Safe to run twice.
-- Token lookups come by hash alone (a token carries no tenant), so the hash leads and tenant_id follows:
-- one index serves the lookup and satisfies the rule.
DROP INDEX IF EXISTS "refresh_tokens_hash_uq";--> statement-breakpoint
CREATE UNIQUE INDEX "refresh_tokens_hash_uq" ON "refresh_tokens" USING btree ("token_hash", "tenant_id");--> statement-breakpoint
DROP INDEX IF EXISTS "password_reset_tokens_hash_uq";--> statement-breakpoint
CREATE UNIQUE INDEX "password_reset_tokens_hash_uq" ON "password_reset_tokens" USING btree ("token_hash", "tenant_id");--> statement-breakpoint
-- handled_by had no foreign key: clear ids of accounts deleted since, then refer to users; deleting the
-- account clears handled_by only (the request and its tenant_id stay).
UPDATE "group_membership_requests" r SET "handled_by" = NULL
  WHERE r."handled_by" IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM "users" u WHERE u."tenant_id" = r."tenant_id" AND u."id" = r."handled_by");--> statement-breakpoint
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'group_membership_requests_handled_by_fk') THEN
    ALTER TABLE "group_membership_requests" ADD CONSTRAINT "group_membership_requests_handled_by_fk"
      FOREIGN KEY ("tenant_id", "handled_by") REFERENCES "users"("tenant_id", "id") ON DELETE SET NULL ("handled_by");
  END IF;
END
$$;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "group_membership_requests_handled_by_idx" ON "group_membership_requests" USING btree ("tenant_id", "handled_by") WHERE "handled_by" IS NOT NULL;
--> statement-breakpoint
-- Login and password-reset throttling counted in the database, so that every server process behind a
-- load balancer counts the same failures (they were counted in each process's memory).
CREATE TABLE IF NOT EXISTS "auth_failures" (
	"key" text NOT NULL,
	"failed_at" timestamp with time zone NOT NULL
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "auth_failures_key_idx" ON "auth_failures" USING btree ("key", "failed_at");
