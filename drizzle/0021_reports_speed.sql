-- Issue 15's dashboard speed. Written to run twice (IF NOT EXISTS, CREATE OR REPLACE, absolute backfills).
--
-- 1. Open unassigned tasks counted at commit (the dashboard's "unassigned" figure): task_unassigned_counts
--    holds, per (tenant, group, confidential, creator), how many tasks are unassigned and Open or
--    InProgress: the three columns the visibility rule of the dashboard reads (reports.tasks.ts,
--    taskVisibleSql; an unassigned task's "own" is its creator). A null group or creator is stored as 0
--    (a primary key holds no null). The design of group_counts (0006): statement triggers on tasks only
--    append their deltas to task_unassigned_pending (no counter row locked while the transaction runs);
--    a deferred constraint trigger applies them at commit, in key order. Triggers, not the tasks
--    service: every write path (tasks module, automations, pipelines' card tasks, cascades of deleted
--    groups, users and contacts, the bench generator) keeps them.
CREATE TABLE IF NOT EXISTS "task_unassigned_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"group_id" bigint NOT NULL,
	"confidential" boolean NOT NULL,
	"created_by_user_id" bigint NOT NULL,
	"n" bigint NOT NULL
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "task_unassigned_pending_xid_idx" ON "task_unassigned_pending" USING btree ("xid");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "task_unassigned_counts" (
	"tenant_id" bigint NOT NULL,
	"group_id" bigint NOT NULL,
	"confidential" boolean NOT NULL,
	"created_by_user_id" bigint NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "task_unassigned_counts_pk" PRIMARY KEY("tenant_id","group_id","confidential","created_by_user_id"),
	CONSTRAINT "task_unassigned_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action
);--> statement-breakpoint
-- SECURITY INVOKER: the writer's row level security applies to the pending rows.
CREATE OR REPLACE FUNCTION task_unassigned_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO task_unassigned_pending (xid, tenant_id, group_id, confidential, created_by_user_id, n)
    SELECT pg_current_xact_id(), tenant_id, coalesce(group_id, 0), confidential, coalesce(created_by_user_id, 0), count(*)
    FROM new_rows WHERE assignee_user_id IS NULL AND status IN ('Open', 'InProgress')
    GROUP BY 2, 3, 4, 5;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO task_unassigned_pending (xid, tenant_id, group_id, confidential, created_by_user_id, n)
    SELECT pg_current_xact_id(), tenant_id, g, confidential, c, sum(d) FROM (
      SELECT tenant_id, coalesce(group_id, 0) AS g, confidential, coalesce(created_by_user_id, 0) AS c, 1 AS d
      FROM new_rows WHERE assignee_user_id IS NULL AND status IN ('Open', 'InProgress')
      UNION ALL
      SELECT tenant_id, coalesce(group_id, 0), confidential, coalesce(created_by_user_id, 0), -1
      FROM old_rows WHERE assignee_user_id IS NULL AND status IN ('Open', 'InProgress')
    ) AS x
    GROUP BY 2, 3, 4, 5 HAVING sum(d) <> 0;
  ELSE
    INSERT INTO task_unassigned_pending (xid, tenant_id, group_id, confidential, created_by_user_id, n)
    SELECT pg_current_xact_id(), tenant_id, coalesce(group_id, 0), confidential, coalesce(created_by_user_id, 0), -count(*)
    FROM old_rows WHERE assignee_user_id IS NULL AND status IN ('Open', 'InProgress')
    GROUP BY 2, 3, 4, 5;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- At commit, as group_counts_apply (0006): the first firing moves ALL of this transaction's rows,
-- counter rows are locked in key order, a deleted tenant is skipped (its counter rows went with it);
-- a row that reaches zero stays (at most one per group, confidential flag and creator ever used). SECURITY DEFINER: every delta of this transaction is applied,
-- whatever role and tenant binding are in effect at commit.
CREATE OR REPLACE FUNCTION task_unassigned_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
BEGIN
  WITH moved AS (
    DELETE FROM task_unassigned_pending WHERE xid = current_xid
    RETURNING tenant_id, group_id, confidential, created_by_user_id, n
  )
  INSERT INTO task_unassigned_counts AS c (tenant_id, group_id, confidential, created_by_user_id, n)
  SELECT m.tenant_id, m.group_id, m.confidential, m.created_by_user_id, sum(m.n)::bigint FROM moved AS m
  WHERE EXISTS (SELECT 1 FROM tenants AS t WHERE t.id = m.tenant_id)
  GROUP BY 1, 2, 3, 4 HAVING sum(m.n) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, group_id, confidential, created_by_user_id) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS task_unassigned_pending_apply ON task_unassigned_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_unassigned_pending_apply AFTER INSERT ON task_unassigned_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION task_unassigned_apply();--> statement-breakpoint
-- CREATE TRIGGER locks tasks against writes until this migration commits, so no write falls between
-- the backfill below and the triggers.
DROP TRIGGER IF EXISTS task_unassigned_insert ON tasks;--> statement-breakpoint
CREATE TRIGGER task_unassigned_insert AFTER INSERT ON tasks
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_unassigned_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS task_unassigned_update ON tasks;--> statement-breakpoint
CREATE TRIGGER task_unassigned_update AFTER UPDATE ON tasks
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION task_unassigned_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS task_unassigned_delete ON tasks;--> statement-breakpoint
CREATE TRIGGER task_unassigned_delete AFTER DELETE ON tasks
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION task_unassigned_track();--> statement-breakpoint
DELETE FROM task_unassigned_counts;--> statement-breakpoint
INSERT INTO task_unassigned_counts (tenant_id, group_id, confidential, created_by_user_id, n)
SELECT tenant_id, coalesce(group_id, 0), confidential, coalesce(created_by_user_id, 0), count(*)
FROM tasks WHERE assignee_user_id IS NULL AND status IN ('Open', 'InProgress')
GROUP BY 1, 2, 3, 4;--> statement-breakpoint
-- 2. Birthdays and anniversaries of a window (the dashboard's next 7 days, the occasions report) by
--    month and day: month * 100 + day of the date (immutable: extract from a date), so a window's
--    days are one or two ranges of these indexes (two when it wraps the year end) instead of every
--    person's date of birth (reports.people.ts, occasionsSql, writes the same expression).
CREATE INDEX IF NOT EXISTS "persons_birth_month_day_idx" ON "persons" USING btree ("tenant_id", (extract(month from "date_of_birth") * 100 + extract(day from "date_of_birth")))
  WHERE "date_of_birth" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contact_occasions_month_day_idx" ON "contact_occasions" USING btree ("tenant_id", (extract(month from "date") * 100 + extract(day from "date")))
  WHERE "type" IN ('Birthday', 'Anniversary') AND "date" IS NOT NULL;
