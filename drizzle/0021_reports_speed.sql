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
--> statement-breakpoint
-- 3. The retention funnel (issue 15: a year of first visitors < 100 ms): one row per first visitor whose
--    first record still exists (contact_first_visits.first_kept), holding every fact the report counts:
--    the first visit's date and group, came back within 30 days, three or more visits, and (kept here,
--    not probed per visitor at read time) joined a group (an active membership), serving (an active
--    membership of a group whose category purpose is Serving), baptised (a Baptism occasion or event
--    activity). The report is one index-only range of retention_visitors_date_idx. Kept by statement
--    triggers on every table a fact comes from (first visits, memberships, groups' categories, category
--    purposes, occasions, event activities and their contacts); each resyncs only the contacts it
--    touched, from the tables themselves (the same rules as the report's former SQL), so the row is
--    exact whatever the write path. Per-contact rows: no shared counter row is locked by check-ins.
CREATE TABLE IF NOT EXISTS "retention_visitors" (
	"tenant_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"first_visit_on" date NOT NULL,
	"group_id" bigint,
	"returned_30" boolean NOT NULL,
	"three_plus" boolean NOT NULL,
	"joined" boolean NOT NULL,
	"serving" boolean NOT NULL,
	"baptised" boolean NOT NULL,
	CONSTRAINT "retention_visitors_pk" PRIMARY KEY("tenant_id","contact_id"),
	CONSTRAINT "retention_visitors_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "retention_visitors_date_idx" ON "retention_visitors" USING btree ("tenant_id","first_visit_on")
  INCLUDE ("group_id","returned_30","three_plus","joined","serving","baptised");--> statement-breakpoint
-- The facts of one tenant's contacts that have a row: recomputed, written only where they changed.
CREATE OR REPLACE FUNCTION retention_facts_refresh(p_tenant bigint, p_contacts bigint[]) RETURNS void
LANGUAGE sql SECURITY INVOKER
AS $$
  UPDATE retention_visitors v SET joined = x.joined, serving = x.serving, baptised = x.baptised
  FROM (
    SELECT v2.contact_id,
      EXISTS (SELECT 1 FROM group_memberships m WHERE m.tenant_id = p_tenant AND m.contact_id = v2.contact_id AND m.is_active) AS joined,
      EXISTS (SELECT 1 FROM group_memberships m
        JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
        JOIN group_categories gc ON gc.tenant_id = g.tenant_id AND gc.id = g.category_id
        WHERE m.tenant_id = p_tenant AND m.contact_id = v2.contact_id AND m.is_active AND gc.purpose = 'Serving') AS serving,
      EXISTS (SELECT 1 FROM contact_occasions o WHERE o.tenant_id = p_tenant AND o.contact_id = v2.contact_id AND o.type = 'Baptism')
        OR EXISTS (SELECT 1 FROM event_activity_contacts ac JOIN event_activities a ON a.tenant_id = ac.tenant_id AND a.id = ac.activity_id
          WHERE ac.tenant_id = p_tenant AND ac.contact_id = v2.contact_id AND a.activity_type = 'Baptism') AS baptised
    FROM retention_visitors v2 WHERE v2.tenant_id = p_tenant AND v2.contact_id = ANY (p_contacts)
  ) x
  WHERE v.tenant_id = p_tenant AND v.contact_id = x.contact_id
    AND (v.joined, v.serving, v.baptised) IS DISTINCT FROM (x.joined, x.serving, x.baptised);
$$;--> statement-breakpoint
-- The rows of one tenant's contacts resynced from contact_first_visits: removed when the contact has no
-- kept first visit, the visit's own columns updated, new first visitors inserted with their facts.
CREATE OR REPLACE FUNCTION retention_visitors_sync(p_tenant bigint, p_contacts bigint[]) RETURNS void
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  DELETE FROM retention_visitors v WHERE v.tenant_id = p_tenant AND v.contact_id = ANY (p_contacts)
    AND NOT EXISTS (SELECT 1 FROM contact_first_visits f WHERE f.tenant_id = p_tenant AND f.contact_id = v.contact_id AND f.first_kept);
  UPDATE retention_visitors v SET first_visit_on = f.date, group_id = f.group_id,
    returned_30 = coalesce(f.returned_on <= f.date + 30, false), three_plus = f.visits >= 3
  FROM contact_first_visits f
  WHERE v.tenant_id = p_tenant AND v.contact_id = ANY (p_contacts) AND f.tenant_id = p_tenant AND f.contact_id = v.contact_id AND f.first_kept
    AND (v.first_visit_on, v.group_id, v.returned_30, v.three_plus)
      IS DISTINCT FROM (f.date, f.group_id, coalesce(f.returned_on <= f.date + 30, false), f.visits >= 3);
  INSERT INTO retention_visitors (tenant_id, contact_id, first_visit_on, group_id, returned_30, three_plus, joined, serving, baptised)
  SELECT p_tenant, f.contact_id, f.date, f.group_id, coalesce(f.returned_on <= f.date + 30, false), f.visits >= 3, false, false, false
  FROM contact_first_visits f
  WHERE f.tenant_id = p_tenant AND f.contact_id = ANY (p_contacts) AND f.first_kept
    AND NOT EXISTS (SELECT 1 FROM retention_visitors v WHERE v.tenant_id = p_tenant AND v.contact_id = f.contact_id);
  PERFORM retention_facts_refresh(p_tenant, p_contacts);
END
$$;--> statement-breakpoint
-- contact_first_visits: 0015's triggers update it at every attendance write (visits); only contacts
-- whose row appeared, went, or changed in a column the funnel reads are resynced.
CREATE OR REPLACE FUNCTION retention_first_visits_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
DECLARE
  t bigint;
  touched bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR t, touched IN SELECT n.tenant_id, array_agg(DISTINCT n.contact_id ORDER BY n.contact_id) FROM new_rows n GROUP BY 1 LOOP
      PERFORM retention_visitors_sync(t, touched);
    END LOOP;
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM retention_visitors v USING old_rows o WHERE v.tenant_id = o.tenant_id AND v.contact_id = o.contact_id;
  ELSE
    FOR t, touched IN
      SELECT x.tenant_id, array_agg(DISTINCT x.contact_id ORDER BY x.contact_id) FROM (
        SELECT n.tenant_id, n.contact_id FROM new_rows n
        LEFT JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.contact_id = n.contact_id
        WHERE o.contact_id IS NULL
          OR (o.date, o.group_id, o.first_kept, coalesce(o.returned_on <= o.date + 30, false), o.visits >= 3)
            IS DISTINCT FROM (n.date, n.group_id, n.first_kept, coalesce(n.returned_on <= n.date + 30, false), n.visits >= 3)
        UNION ALL
        SELECT o.tenant_id, o.contact_id FROM old_rows o
        LEFT JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.contact_id = o.contact_id
        WHERE n.contact_id IS NULL
      ) x GROUP BY 1
    LOOP
      PERFORM retention_visitors_sync(t, touched);
    END LOOP;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Tables whose rows name the contact (memberships, occasions, event activity contacts): the contacts
-- of the old and new rows. (A Baptism occasion or not: only Baptism rows change a fact.)
CREATE OR REPLACE FUNCTION retention_contacts_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
DECLARE
  t bigint;
  touched bigint[];
  baptism_only boolean := TG_TABLE_NAME = 'contact_occasions';
BEGIN
  -- Each statement names only the transition tables its operation has.
  IF TG_OP = 'INSERT' THEN
    FOR t, touched IN SELECT n.tenant_id, array_agg(DISTINCT n.contact_id ORDER BY n.contact_id) FROM new_rows n
      WHERE NOT baptism_only OR to_jsonb(n) ->> 'type' = 'Baptism' GROUP BY 1 LOOP
      PERFORM retention_facts_refresh(t, touched);
    END LOOP;
  ELSIF TG_OP = 'DELETE' THEN
    FOR t, touched IN SELECT o.tenant_id, array_agg(DISTINCT o.contact_id ORDER BY o.contact_id) FROM old_rows o
      WHERE NOT baptism_only OR to_jsonb(o) ->> 'type' = 'Baptism' GROUP BY 1 LOOP
      PERFORM retention_facts_refresh(t, touched);
    END LOOP;
  ELSE
    FOR t, touched IN
      SELECT x.tenant_id, array_agg(DISTINCT x.contact_id ORDER BY x.contact_id) FROM (
        SELECT n.tenant_id, n.contact_id FROM new_rows n WHERE NOT baptism_only OR to_jsonb(n) ->> 'type' = 'Baptism'
        UNION ALL
        SELECT o.tenant_id, o.contact_id FROM old_rows o WHERE NOT baptism_only OR to_jsonb(o) ->> 'type' = 'Baptism'
      ) x GROUP BY 1
    LOOP
      PERFORM retention_facts_refresh(t, touched);
    END LOOP;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- A group's category, a category's purpose, an activity's type: the active members of the groups, or
-- the contacts of the activities, whose value changed.
CREATE OR REPLACE FUNCTION retention_kinds_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
DECLARE
  t bigint;
  touched bigint[];
BEGIN
  IF TG_TABLE_NAME = 'groups' THEN
    FOR t, touched IN
      SELECT m.tenant_id, array_agg(DISTINCT m.contact_id ORDER BY m.contact_id)
      FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
      JOIN group_memberships m ON m.tenant_id = n.tenant_id AND m.group_id = n.id AND m.is_active
      WHERE o.category_id IS DISTINCT FROM n.category_id GROUP BY 1
    LOOP
      PERFORM retention_facts_refresh(t, touched);
    END LOOP;
  ELSIF TG_TABLE_NAME = 'group_categories' THEN
    FOR t, touched IN
      SELECT m.tenant_id, array_agg(DISTINCT m.contact_id ORDER BY m.contact_id)
      FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
      JOIN groups g ON g.tenant_id = n.tenant_id AND g.category_id = n.id
      JOIN group_memberships m ON m.tenant_id = g.tenant_id AND m.group_id = g.id AND m.is_active
      WHERE o.purpose IS DISTINCT FROM n.purpose GROUP BY 1
    LOOP
      PERFORM retention_facts_refresh(t, touched);
    END LOOP;
  ELSE
    FOR t, touched IN
      SELECT ac.tenant_id, array_agg(DISTINCT ac.contact_id ORDER BY ac.contact_id)
      FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
      JOIN event_activity_contacts ac ON ac.tenant_id = n.tenant_id AND ac.activity_id = n.id
      WHERE o.activity_type IS DISTINCT FROM n.activity_type GROUP BY 1
    LOOP
      PERFORM retention_facts_refresh(t, touched);
    END LOOP;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- CREATE TRIGGER locks each table against writes until this migration commits, so no write falls
-- between the triggers and the backfill at the end.
DROP TRIGGER IF EXISTS retention_first_visits_insert ON contact_first_visits;--> statement-breakpoint
CREATE TRIGGER retention_first_visits_insert AFTER INSERT ON contact_first_visits
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_first_visits_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_first_visits_update ON contact_first_visits;--> statement-breakpoint
CREATE TRIGGER retention_first_visits_update AFTER UPDATE ON contact_first_visits
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_first_visits_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_first_visits_delete ON contact_first_visits;--> statement-breakpoint
CREATE TRIGGER retention_first_visits_delete AFTER DELETE ON contact_first_visits
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_first_visits_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_memberships_insert ON group_memberships;--> statement-breakpoint
CREATE TRIGGER retention_memberships_insert AFTER INSERT ON group_memberships
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_memberships_update ON group_memberships;--> statement-breakpoint
CREATE TRIGGER retention_memberships_update AFTER UPDATE ON group_memberships
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_memberships_delete ON group_memberships;--> statement-breakpoint
CREATE TRIGGER retention_memberships_delete AFTER DELETE ON group_memberships
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_occasions_insert ON contact_occasions;--> statement-breakpoint
CREATE TRIGGER retention_occasions_insert AFTER INSERT ON contact_occasions
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_occasions_update ON contact_occasions;--> statement-breakpoint
CREATE TRIGGER retention_occasions_update AFTER UPDATE ON contact_occasions
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_occasions_delete ON contact_occasions;--> statement-breakpoint
CREATE TRIGGER retention_occasions_delete AFTER DELETE ON contact_occasions
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activity_contacts_insert ON event_activity_contacts;--> statement-breakpoint
CREATE TRIGGER retention_activity_contacts_insert AFTER INSERT ON event_activity_contacts
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activity_contacts_update ON event_activity_contacts;--> statement-breakpoint
CREATE TRIGGER retention_activity_contacts_update AFTER UPDATE ON event_activity_contacts
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activity_contacts_delete ON event_activity_contacts;--> statement-breakpoint
CREATE TRIGGER retention_activity_contacts_delete AFTER DELETE ON event_activity_contacts
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_contacts_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_groups_update ON groups;--> statement-breakpoint
CREATE TRIGGER retention_groups_update AFTER UPDATE ON groups
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_kinds_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_categories_update ON group_categories;--> statement-breakpoint
CREATE TRIGGER retention_categories_update AFTER UPDATE ON group_categories
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_kinds_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activities_update ON event_activities;--> statement-breakpoint
CREATE TRIGGER retention_activities_update AFTER UPDATE ON event_activities
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_kinds_track();--> statement-breakpoint
-- Backfill (absolute: a second run rebuilds the same rows), set-based.
DELETE FROM retention_visitors;--> statement-breakpoint
INSERT INTO retention_visitors (tenant_id, contact_id, first_visit_on, group_id, returned_30, three_plus, joined, serving, baptised)
SELECT f.tenant_id, f.contact_id, f.date, f.group_id, coalesce(f.returned_on <= f.date + 30, false), f.visits >= 3,
  j.contact_id IS NOT NULL, s.contact_id IS NOT NULL, b.contact_id IS NOT NULL
FROM contact_first_visits f
LEFT JOIN (SELECT DISTINCT tenant_id, contact_id FROM group_memberships WHERE is_active) j ON j.tenant_id = f.tenant_id AND j.contact_id = f.contact_id
LEFT JOIN (
  SELECT DISTINCT m.tenant_id, m.contact_id FROM group_memberships m
  JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
  JOIN group_categories gc ON gc.tenant_id = g.tenant_id AND gc.id = g.category_id
  WHERE m.is_active AND gc.purpose = 'Serving'
) s ON s.tenant_id = f.tenant_id AND s.contact_id = f.contact_id
LEFT JOIN (
  SELECT tenant_id, contact_id FROM contact_occasions WHERE type = 'Baptism'
  UNION
  SELECT ac.tenant_id, ac.contact_id FROM event_activity_contacts ac JOIN event_activities a ON a.tenant_id = ac.tenant_id AND a.id = ac.activity_id
  WHERE a.activity_type = 'Baptism'
) b ON b.tenant_id = f.tenant_id AND b.contact_id = f.contact_id
WHERE f.first_kept;
