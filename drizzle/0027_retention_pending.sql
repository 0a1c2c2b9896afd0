-- Issue 15: the retention funnel and the dashboard's birthdays. Written to run twice (IF NOT EXISTS,
-- CREATE OR REPLACE, DROP … IF EXISTS, absolute backfill).
--
-- 1. The retention funnel's per-visitor facts, kept at commit (a year of first visitors < 100 ms on the
--    large tenant: the report reads one index range instead of hashing every membership and baptism of
--    the tenant). retention_visitors holds one row per contact whose first record still exists
--    (contact_first_visits.first_kept): the first visit's date and group, came back within 30 days, three
--    or more visits, joined a group (an active membership), serving (an active membership of a group
--    whose category purpose is Serving), baptised (a Baptism occasion or event activity).
--    0021 kept the same facts with statement triggers that resynced the contacts at once (4efdcfa); each
--    first-time attendance record writes contact_first_visits on its own (0008's row trigger), so every
--    first visit ran a resync: roster posts 4-10x slower, taken out (1b279c3, 0024). Here the writes only
--    queue the contacts they touch in retention_pending (xid, tenant, contact), and a deferred constraint
--    trigger resyncs them once per transaction at commit (the apply-once marker of 0025:
--    pending_apply_first, WHEN (NEW.apply)). Attendance queues only what can change a fact: the first
--    visitors of an insert (one statement trigger per records statement, not per first visit) and the
--    first visits whose date, group, kept flag, 30-day return or three-visit mark moved (the one update
--    0015's records trigger makes per statement).
--    A resync recomputes the contact's row from the tables themselves (the rules of the report's former
--    SQL), so it is exact whatever the write path. Two transactions touching one contact (one adds a
--    membership, the other a first visit) would each compute from a snapshot without the other's write:
--    the apply first takes transaction advisory locks on the contacts (in key order), and computes in
--    the next statement, whose snapshot sees whatever a lock's previous holder committed. The locks are
--    per tenant and contact id modulo 64, at most 64 per tenant: advisory locks fill the shared lock
--    table, so one per contact would fail a bulk load of thousands of first visits in one transaction.
--    No foreign key to contacts (the privacy module moves and exports every table that has one): a
--    deleted contact's first visit goes by cascade, which queues the contact, whose row the apply removes.
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
CREATE TABLE IF NOT EXISTS "retention_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"apply" boolean DEFAULT pending_apply_first('retention') NOT NULL
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "retention_pending_xid_idx" ON "retention_pending" USING btree ("xid");--> statement-breakpoint
-- The queue's writers. SECURITY INVOKER: the writer's row level security applies to the queued rows.
-- One function for every table a fact comes from; each statement names only the transition tables its
-- operation has, so every branch reads new_rows / old_rows only where they exist.
CREATE OR REPLACE FUNCTION retention_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_TABLE_NAME = 'attendance_records' THEN
    -- New first visits (0008's row trigger marked the record that made one).
    INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n WHERE n.is_first_time;
  ELSIF TG_TABLE_NAME = 'contact_first_visits' THEN
    IF TG_OP = 'DELETE' THEN
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o;
    ELSE
      -- Rows whose funnel columns changed, and both contacts of a row moved to another contact.
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), x.tenant_id, x.contact_id FROM (
        SELECT n.tenant_id, n.contact_id FROM new_rows n
        LEFT JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.contact_id = n.contact_id
        WHERE o.contact_id IS NULL
          OR (o.date, o.group_id, o.first_kept, coalesce(o.returned_on <= o.date + 30, false), o.visits >= 3)
            IS DISTINCT FROM (n.date, n.group_id, n.first_kept, coalesce(n.returned_on <= n.date + 30, false), n.visits >= 3)
        UNION ALL
        SELECT o.tenant_id, o.contact_id FROM old_rows o
        LEFT JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.contact_id = o.contact_id
        WHERE n.contact_id IS NULL
      ) x;
    END IF;
  ELSIF TG_TABLE_NAME = 'group_memberships' THEN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n WHERE n.is_active;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o WHERE o.is_active;
    ELSE
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), x.tenant_id, x.contact_id FROM (
        SELECT o.tenant_id, unnest(ARRAY[o.contact_id, n.contact_id]) AS contact_id
        FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
        WHERE (o.contact_id, o.group_id, o.is_active) IS DISTINCT FROM (n.contact_id, n.group_id, n.is_active)
      ) x;
    END IF;
  ELSIF TG_TABLE_NAME = 'contact_occasions' THEN
    -- Only Baptism rows make a fact.
    IF TG_OP = 'INSERT' THEN
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n WHERE n.type = 'Baptism';
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o WHERE o.type = 'Baptism';
    ELSE
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), x.tenant_id, x.contact_id FROM (
        SELECT o.tenant_id, unnest(ARRAY[o.contact_id, n.contact_id]) AS contact_id
        FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
        WHERE (o.type = 'Baptism' OR n.type = 'Baptism') AND (o.contact_id, o.type) IS DISTINCT FROM (n.contact_id, n.type)
      ) x;
    END IF;
  ELSIF TG_TABLE_NAME = 'event_activity_contacts' THEN
    -- The activity's type is read at commit (an activity deleted by cascade is gone by then).
    IF TG_OP = 'INSERT' THEN
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o;
    ELSE
      INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), x.tenant_id, x.contact_id FROM (
        SELECT n.tenant_id, n.contact_id FROM new_rows n UNION ALL SELECT o.tenant_id, o.contact_id FROM old_rows o
      ) x;
    END IF;
  ELSIF TG_TABLE_NAME = 'groups' THEN
    -- A group's category (serving): its active members.
    INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), m.tenant_id, m.contact_id
    FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
    JOIN group_memberships m ON m.tenant_id = n.tenant_id AND m.group_id = n.id AND m.is_active
    WHERE o.category_id IS DISTINCT FROM n.category_id;
  ELSIF TG_TABLE_NAME = 'group_categories' THEN
    -- A category's purpose: the active members of its groups.
    INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), m.tenant_id, m.contact_id
    FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
    JOIN groups g ON g.tenant_id = n.tenant_id AND g.category_id = n.id
    JOIN group_memberships m ON m.tenant_id = g.tenant_id AND m.group_id = g.id AND m.is_active
    WHERE o.purpose IS DISTINCT FROM n.purpose;
  ELSIF TG_TABLE_NAME = 'event_activities' THEN
    -- An activity's type (baptism): its contacts.
    INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), ac.tenant_id, ac.contact_id
    FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
    JOIN event_activity_contacts ac ON ac.tenant_id = n.tenant_id AND ac.activity_id = n.id
    WHERE o.activity_type IS DISTINCT FROM n.activity_type;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- At commit, once per transaction (the first queued row since the last apply fires it): lock the
-- queued contacts (advisory, by tenant and contact id modulo 64, in key order), then recompute their
-- rows from the tables, per tenant: removed where the contact has no kept first visit, inserted or
-- updated (only where a fact changed) otherwise. SECURITY DEFINER: every queued contact of this
-- transaction is resynced, whatever role and tenant binding are in effect at commit.
CREATE OR REPLACE FUNCTION retention_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
  t bigint;
  touched bigint[];
BEGIN
  PERFORM pg_advisory_xact_lock(k.key) FROM (
    SELECT DISTINCT hashtextextended('parish.retention/' || p.tenant_id || '/' || (p.contact_id % 64), 0) AS key
    FROM retention_pending p WHERE p.xid = current_xid ORDER BY 1
  ) k;
  -- Per tenant, the contacts as an array: every read below is a probe by key (a join with the queue
  -- would be planned as a hash over every first visitor of the table).
  FOR t, touched IN
    SELECT p.tenant_id, array_agg(DISTINCT p.contact_id ORDER BY p.contact_id) FROM retention_pending p WHERE p.xid = current_xid GROUP BY 1
  LOOP
    DELETE FROM retention_visitors v WHERE v.tenant_id = t AND v.contact_id = ANY (touched)
      AND NOT EXISTS (SELECT 1 FROM contact_first_visits f WHERE f.tenant_id = t AND f.contact_id = v.contact_id AND f.first_kept);
    INSERT INTO retention_visitors AS v (tenant_id, contact_id, first_visit_on, group_id, returned_30, three_plus, joined, serving, baptised)
    SELECT t, f.contact_id, f.date, f.group_id, coalesce(f.returned_on <= f.date + 30, false), f.visits >= 3,
      EXISTS (SELECT 1 FROM group_memberships m WHERE m.tenant_id = t AND m.contact_id = f.contact_id AND m.is_active),
      EXISTS (SELECT 1 FROM group_memberships m
        JOIN groups g ON g.tenant_id = m.tenant_id AND g.id = m.group_id
        JOIN group_categories gc ON gc.tenant_id = g.tenant_id AND gc.id = g.category_id
        WHERE m.tenant_id = t AND m.contact_id = f.contact_id AND m.is_active AND gc.purpose = 'Serving'),
      EXISTS (SELECT 1 FROM contact_occasions o WHERE o.tenant_id = t AND o.contact_id = f.contact_id AND o.type = 'Baptism')
        OR EXISTS (SELECT 1 FROM event_activity_contacts ac JOIN event_activities a ON a.tenant_id = ac.tenant_id AND a.id = ac.activity_id
          WHERE ac.tenant_id = t AND ac.contact_id = f.contact_id AND a.activity_type = 'Baptism')
    FROM contact_first_visits f
    WHERE f.tenant_id = t AND f.contact_id = ANY (touched) AND f.first_kept AND EXISTS (SELECT 1 FROM tenants x WHERE x.id = t)
    ORDER BY 2
    ON CONFLICT (tenant_id, contact_id) DO UPDATE SET first_visit_on = excluded.first_visit_on, group_id = excluded.group_id,
      returned_30 = excluded.returned_30, three_plus = excluded.three_plus, joined = excluded.joined, serving = excluded.serving,
      baptised = excluded.baptised
    WHERE (v.first_visit_on, v.group_id, v.returned_30, v.three_plus, v.joined, v.serving, v.baptised)
      IS DISTINCT FROM (excluded.first_visit_on, excluded.group_id, excluded.returned_30, excluded.three_plus, excluded.joined, excluded.serving, excluded.baptised);
  END LOOP;
  DELETE FROM retention_pending WHERE xid = current_xid;
  PERFORM set_config('parish.pending_retention', '', true);
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_pending_apply ON retention_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER retention_pending_apply AFTER INSERT ON retention_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION retention_apply();--> statement-breakpoint
-- CREATE TRIGGER locks each table against writes until this migration commits, so no write falls
-- between the triggers and the backfill at the end.
DROP TRIGGER IF EXISTS retention_records_insert ON attendance_records;--> statement-breakpoint
CREATE TRIGGER retention_records_insert AFTER INSERT ON attendance_records
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_first_visits_update ON contact_first_visits;--> statement-breakpoint
CREATE TRIGGER retention_first_visits_update AFTER UPDATE ON contact_first_visits
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_first_visits_delete ON contact_first_visits;--> statement-breakpoint
CREATE TRIGGER retention_first_visits_delete AFTER DELETE ON contact_first_visits
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_memberships_insert ON group_memberships;--> statement-breakpoint
CREATE TRIGGER retention_memberships_insert AFTER INSERT ON group_memberships
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_memberships_update ON group_memberships;--> statement-breakpoint
CREATE TRIGGER retention_memberships_update AFTER UPDATE ON group_memberships
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_memberships_delete ON group_memberships;--> statement-breakpoint
CREATE TRIGGER retention_memberships_delete AFTER DELETE ON group_memberships
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_occasions_insert ON contact_occasions;--> statement-breakpoint
CREATE TRIGGER retention_occasions_insert AFTER INSERT ON contact_occasions
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_occasions_update ON contact_occasions;--> statement-breakpoint
CREATE TRIGGER retention_occasions_update AFTER UPDATE ON contact_occasions
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_occasions_delete ON contact_occasions;--> statement-breakpoint
CREATE TRIGGER retention_occasions_delete AFTER DELETE ON contact_occasions
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activity_contacts_insert ON event_activity_contacts;--> statement-breakpoint
CREATE TRIGGER retention_activity_contacts_insert AFTER INSERT ON event_activity_contacts
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activity_contacts_update ON event_activity_contacts;--> statement-breakpoint
CREATE TRIGGER retention_activity_contacts_update AFTER UPDATE ON event_activity_contacts
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activity_contacts_delete ON event_activity_contacts;--> statement-breakpoint
CREATE TRIGGER retention_activity_contacts_delete AFTER DELETE ON event_activity_contacts
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_groups_update ON groups;--> statement-breakpoint
CREATE TRIGGER retention_groups_update AFTER UPDATE ON groups
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_categories_update ON group_categories;--> statement-breakpoint
CREATE TRIGGER retention_categories_update AFTER UPDATE ON group_categories
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS retention_activities_update ON event_activities;--> statement-breakpoint
CREATE TRIGGER retention_activities_update AFTER UPDATE ON event_activities
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION retention_track();--> statement-breakpoint
-- Backfill (absolute: a second run rebuilds the same rows), set-based.
DELETE FROM retention_pending;--> statement-breakpoint
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
--> statement-breakpoint
-- 2. Birthdays and anniversaries by month and day (the dashboard's next 7 days, the occasions report).
--    0021's month-day expression indexes are never used by the service: under row level security the
--    planner may not use an expression of non-leakproof functions (extract, numeric arithmetic) as an
--    index condition, so the dashboard read every person of the tenant (58,000 rows on the large bench
--    tenant, 29-55 ms of the dashboard). As contact_import_email_matches (0020) does, these functions
--    run as their owner and apply the policy's own tenant rule (app.tenant_id; no tenant bound: no
--    rows), and read by the index: the persons, or the Birthday and Anniversary occasions, whose
--    month * 100 + day lies in one of two ranges (p_ranges = {from1, to1, from2, to2}; an empty second
--    range is {…, 0, -1}). The indexes are rebuilt on the expression cast to integer (smaller keys).
CREATE INDEX IF NOT EXISTS "persons_birth_md_idx" ON "persons" USING btree ("tenant_id", ((extract(month from "date_of_birth") * 100 + extract(day from "date_of_birth"))::integer))
  WHERE "date_of_birth" IS NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contact_occasions_md_idx" ON "contact_occasions" USING btree ("tenant_id", ((extract(month from "date") * 100 + extract(day from "date"))::integer))
  WHERE "type" IN ('Birthday', 'Anniversary') AND "date" IS NOT NULL;--> statement-breakpoint
DROP INDEX IF EXISTS "persons_birth_month_day_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "contact_occasions_month_day_idx";--> statement-breakpoint
CREATE OR REPLACE FUNCTION occasion_birthdays(p_ranges integer[])
RETURNS TABLE (contact_id bigint, date_of_birth date, first_name text, last_name text)
LANGUAGE sql STABLE SECURITY DEFINER ROWS 200
SET search_path = public, pg_temp
AS $$
  SELECT p.contact_id, p.date_of_birth, p.first_name, p.last_name FROM persons AS p
  WHERE p.tenant_id = nullif(current_setting('app.tenant_id', true), '')::bigint AND p.date_of_birth IS NOT NULL
    AND (((extract(month from p.date_of_birth) * 100 + extract(day from p.date_of_birth))::integer BETWEEN p_ranges[1] AND p_ranges[2])
      OR ((extract(month from p.date_of_birth) * 100 + extract(day from p.date_of_birth))::integer BETWEEN p_ranges[3] AND p_ranges[4]))
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION occasion_dates(p_ranges integer[])
RETURNS TABLE (contact_id bigint, type text, date date)
LANGUAGE sql STABLE SECURITY DEFINER ROWS 20
SET search_path = public, pg_temp
AS $$
  SELECT o.contact_id, o.type, o.date FROM contact_occasions AS o
  WHERE o.tenant_id = nullif(current_setting('app.tenant_id', true), '')::bigint AND o.type IN ('Birthday', 'Anniversary') AND o.date IS NOT NULL
    AND (((extract(month from o.date) * 100 + extract(day from o.date))::integer BETWEEN p_ranges[1] AND p_ranges[2])
      OR ((extract(month from o.date) * 100 + extract(day from o.date))::integer BETWEEN p_ranges[3] AND p_ranges[4]))
$$;--> statement-breakpoint
-- 3. Active members per group, kept at commit (the dashboard's groups.members: a caller's groups are
--    summed from a row each, not counted over every membership: 57,000 on the large bench tenant). The
--    design of task_unassigned_counts (0021) with 0025's apply-once marker: statement triggers on
--    group_memberships append deltas per group to group_member_pending, a deferred constraint trigger
--    applies them once per transaction at commit, in key order. A deleted group's row stays at zero.
CREATE TABLE IF NOT EXISTS "group_member_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"group_id" bigint NOT NULL,
	"n" bigint NOT NULL,
	"apply" boolean DEFAULT pending_apply_first('group_member') NOT NULL
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "group_member_pending_xid_idx" ON "group_member_pending" USING btree ("xid");--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "group_member_counts" (
	"tenant_id" bigint NOT NULL,
	"group_id" bigint NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "group_member_counts_pk" PRIMARY KEY("tenant_id","group_id"),
	CONSTRAINT "group_member_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action
);--> statement-breakpoint
CREATE OR REPLACE FUNCTION group_member_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO group_member_pending (xid, tenant_id, group_id, n)
    SELECT pg_current_xact_id(), tenant_id, group_id, count(*) FROM new_rows WHERE is_active GROUP BY 2, 3;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO group_member_pending (xid, tenant_id, group_id, n)
    SELECT pg_current_xact_id(), tenant_id, group_id, sum(d) FROM (
      SELECT tenant_id, group_id, 1 AS d FROM new_rows WHERE is_active
      UNION ALL
      SELECT tenant_id, group_id, -1 FROM old_rows WHERE is_active
    ) AS x
    GROUP BY 2, 3 HAVING sum(d) <> 0;
  ELSE
    INSERT INTO group_member_pending (xid, tenant_id, group_id, n)
    SELECT pg_current_xact_id(), tenant_id, group_id, -count(*) FROM old_rows WHERE is_active GROUP BY 2, 3;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION group_member_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
BEGIN
  WITH moved AS (
    DELETE FROM group_member_pending WHERE xid = current_xid RETURNING tenant_id, group_id, n
  )
  INSERT INTO group_member_counts AS c (tenant_id, group_id, n)
  SELECT m.tenant_id, m.group_id, sum(m.n)::bigint FROM moved AS m
  WHERE EXISTS (SELECT 1 FROM tenants AS t WHERE t.id = m.tenant_id)
  GROUP BY 1, 2 HAVING sum(m.n) <> 0 ORDER BY 1, 2
  ON CONFLICT (tenant_id, group_id) DO UPDATE SET n = c.n + excluded.n;
  PERFORM set_config('parish.pending_group_member', '', true);
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS group_member_pending_apply ON group_member_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER group_member_pending_apply AFTER INSERT ON group_member_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION group_member_apply();--> statement-breakpoint
DROP TRIGGER IF EXISTS group_member_count_insert ON group_memberships;--> statement-breakpoint
CREATE TRIGGER group_member_count_insert AFTER INSERT ON group_memberships
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION group_member_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS group_member_count_update ON group_memberships;--> statement-breakpoint
CREATE TRIGGER group_member_count_update AFTER UPDATE ON group_memberships
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION group_member_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS group_member_count_delete ON group_memberships;--> statement-breakpoint
CREATE TRIGGER group_member_count_delete AFTER DELETE ON group_memberships
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION group_member_track();--> statement-breakpoint
DELETE FROM group_member_pending;--> statement-breakpoint
DELETE FROM group_member_counts;--> statement-breakpoint
INSERT INTO group_member_counts (tenant_id, group_id, n)
SELECT tenant_id, group_id, count(*) FROM group_memberships WHERE is_active GROUP BY 1, 2;
