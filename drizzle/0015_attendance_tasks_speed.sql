-- Attendance counts kept by the database at every write (issue 12's speed targets), so the records
-- feed's exact total, the summary and the attendance-trend report sum counters instead of counting
-- a million records, and the retention funnel reads one row per first visitor:
--   attendance_sessions.present_count … headcount_total  one session's records (all, Guest,
--       Volunteer, first-time) and its headcounts;
--   attendance_daily_counts  the same summed per (tenant, date, did_not_meet), sessions included:
--       the whole tenant's figures over a window are a few hundred rows;
--   contact_first_visits.visits, returned_on, group_id, first_kept  per first visitor: how many
--       records, the first later visit on or after the first one, the first record's group, and
--       whether the first record still exists.
-- Triggers, not the services: every write path (the attendance module, event attendance, check-in,
-- privacy merge and erase, cascades of deleted sessions, events, groups and contacts, the bench
-- generator) keeps them. Records and headcounts only append deltas to attendance_count_pending
-- (plain inserts, no lock on a shared row); a deferred constraint trigger applies them at commit
-- (the design of contact_counts, 0004/0005): concurrent check-ins into one session lock its row
-- only while committing, in key order. Nothing reads these counters inside the writing transaction.
-- Written to run twice (IF NOT EXISTS, CREATE OR REPLACE, absolute backfills).
ALTER TABLE "attendance_sessions" ADD COLUMN IF NOT EXISTS "present_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "attendance_sessions" ADD COLUMN IF NOT EXISTS "guest_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "attendance_sessions" ADD COLUMN IF NOT EXISTS "volunteer_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "attendance_sessions" ADD COLUMN IF NOT EXISTS "first_time_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "attendance_sessions" ADD COLUMN IF NOT EXISTS "headcount_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_first_visits" ADD COLUMN IF NOT EXISTS "visits" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_first_visits" ADD COLUMN IF NOT EXISTS "returned_on" date;--> statement-breakpoint
ALTER TABLE "contact_first_visits" ADD COLUMN IF NOT EXISTS "group_id" bigint;--> statement-breakpoint
ALTER TABLE "contact_first_visits" ADD COLUMN IF NOT EXISTS "first_kept" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "attendance_daily_counts" (
	"tenant_id" bigint NOT NULL,
	"date" date NOT NULL,
	"did_not_meet" boolean NOT NULL,
	"sessions" bigint NOT NULL,
	"present" bigint NOT NULL,
	"guests" bigint NOT NULL,
	"volunteers" bigint NOT NULL,
	"first_time" bigint NOT NULL,
	"headcount" bigint NOT NULL,
	CONSTRAINT "attendance_daily_counts_tenant_id_date_did_not_meet_pk" PRIMARY KEY("tenant_id","date","did_not_meet"),
	CONSTRAINT "attendance_daily_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action
);--> statement-breakpoint
-- A row with session_id is a delta of that session's counters (records, headcounts); a row without
-- one is a delta of attendance_daily_counts (date, did_not_meet) made by a session's own insert,
-- update or delete.
CREATE TABLE IF NOT EXISTS "attendance_count_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"session_id" bigint,
	"date" date,
	"did_not_meet" boolean,
	"sessions" bigint DEFAULT 0 NOT NULL,
	"present" bigint DEFAULT 0 NOT NULL,
	"guests" bigint DEFAULT 0 NOT NULL,
	"volunteers" bigint DEFAULT 0 NOT NULL,
	"first_time" bigint DEFAULT 0 NOT NULL,
	"headcount" bigint DEFAULT 0 NOT NULL
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "attendance_count_pending_xid_idx" ON "attendance_count_pending" USING btree ("xid");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contact_first_visits_group_idx" ON "contact_first_visits" USING btree ("tenant_id","group_id");--> statement-breakpoint
-- Absentees' lastAttendedOn (a member's latest record at one group) from the index alone: the contact
-- index gains group_id before date (it served only contact lookups; 20 probes cost 17 ms of heap
-- fetches on the large bench tenant).
CREATE INDEX IF NOT EXISTS "attendance_records_contact_group_idx" ON "attendance_records" USING btree ("tenant_id","contact_id","group_id","date");--> statement-breakpoint
DROP INDEX IF EXISTS "attendance_records_contact_idx";--> statement-breakpoint
-- The first visit takes the session's group (0008's insert trigger, plus group_id).
CREATE OR REPLACE FUNCTION attendance_records_fill() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
DECLARE
  s record;
  n integer;
BEGIN
  IF NEW.session_id IS NULL AND NEW.event_id IS NOT NULL THEN
    INSERT INTO attendance_sessions (tenant_id, date, source, group_id, event_id)
      SELECT e.tenant_id, e.start_date, 'Event', e.group_id, e.id FROM events e
      WHERE e.tenant_id = NEW.tenant_id AND e.id = NEW.event_id
      ON CONFLICT DO NOTHING;
    SELECT x.id INTO NEW.session_id FROM attendance_sessions x JOIN events e ON e.tenant_id = x.tenant_id AND e.id = x.event_id
      WHERE x.tenant_id = NEW.tenant_id AND x.source = 'Event' AND x.event_id = NEW.event_id AND x.date = e.start_date;
  END IF;
  SELECT x.date, x.group_id, x.event_id INTO s FROM attendance_sessions x WHERE x.tenant_id = NEW.tenant_id AND x.id = NEW.session_id;
  IF FOUND THEN
    NEW.date := s.date;
    NEW.group_id := s.group_id;
    NEW.event_id := s.event_id;
    INSERT INTO contact_first_visits (tenant_id, contact_id, record_id, date, group_id)
      VALUES (NEW.tenant_id, NEW.contact_id, NEW.id, s.date, s.group_id) ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS n = ROW_COUNT;
    NEW.is_first_time := n > 0;
  END IF;
  RETURN NEW;
END
$$;--> statement-breakpoint
-- A first visit's derived columns, recomputed from the records (after deletes and moves of records,
-- and when a merge moves the first visit itself to another contact).
CREATE OR REPLACE FUNCTION attendance_first_visit_refresh(p_tenant bigint, p_contacts bigint[]) RETURNS void
LANGUAGE sql SECURITY INVOKER
AS $$
  UPDATE contact_first_visits f SET
    visits = (SELECT count(*) FROM attendance_records r WHERE r.tenant_id = f.tenant_id AND r.contact_id = f.contact_id),
    returned_on = (SELECT min(r.date) FROM attendance_records r
      WHERE r.tenant_id = f.tenant_id AND r.contact_id = f.contact_id AND NOT r.is_first_time AND r.date >= f.date),
    group_id = (SELECT r.group_id FROM attendance_records r WHERE r.tenant_id = f.tenant_id AND r.id = f.record_id),
    first_kept = EXISTS (SELECT 1 FROM attendance_records r WHERE r.tenant_id = f.tenant_id AND r.id = f.record_id)
  WHERE f.tenant_id = p_tenant AND f.contact_id = ANY (p_contacts);
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION attendance_first_visit_moved() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  SELECT count(*), min(r.date) FILTER (WHERE NOT r.is_first_time AND r.date >= NEW.date) INTO NEW.visits, NEW.returned_on
    FROM attendance_records r WHERE r.tenant_id = NEW.tenant_id AND r.contact_id = NEW.contact_id;
  SELECT r.group_id INTO NEW.group_id FROM attendance_records r WHERE r.tenant_id = NEW.tenant_id AND r.id = NEW.record_id;
  NEW.first_kept := FOUND;
  RETURN NEW;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_first_visit_moved ON contact_first_visits;--> statement-breakpoint
CREATE TRIGGER attendance_first_visit_moved BEFORE UPDATE OF contact_id, record_id, date ON contact_first_visits
  FOR EACH ROW EXECUTE FUNCTION attendance_first_visit_moved();--> statement-breakpoint
-- Records: per statement, one pending delta per session touched; first visits follow at once (their
-- rows belong to the contacts written, locked in key order).
CREATE OR REPLACE FUNCTION attendance_records_count() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
DECLARE
  t bigint;
  touched bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attendance_count_pending (xid, tenant_id, session_id, present, guests, volunteers, first_time)
    SELECT pg_current_xact_id(), tenant_id, session_id, count(*), count(*) FILTER (WHERE kind = 'Guest'),
      count(*) FILTER (WHERE kind = 'Volunteer'), count(*) FILTER (WHERE is_first_time)
    FROM new_rows GROUP BY tenant_id, session_id;
    PERFORM 1 FROM contact_first_visits f
      WHERE (f.tenant_id, f.contact_id) IN (SELECT n.tenant_id, n.contact_id FROM new_rows n)
      ORDER BY f.tenant_id, f.contact_id FOR NO KEY UPDATE;
    UPDATE contact_first_visits f SET visits = f.visits + d.n, returned_on = least(f.returned_on, d.m)
    FROM (
      SELECT n.tenant_id, n.contact_id, count(*) AS n, min(n.date) FILTER (WHERE NOT n.is_first_time AND n.date >= fv.date) AS m
      FROM new_rows n JOIN contact_first_visits fv ON fv.tenant_id = n.tenant_id AND fv.contact_id = n.contact_id
      GROUP BY 1, 2
    ) d
    WHERE f.tenant_id = d.tenant_id AND f.contact_id = d.contact_id;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO attendance_count_pending (xid, tenant_id, session_id, present, guests, volunteers, first_time)
    SELECT pg_current_xact_id(), tenant_id, session_id, -count(*), -count(*) FILTER (WHERE kind = 'Guest'),
      -count(*) FILTER (WHERE kind = 'Volunteer'), -count(*) FILTER (WHERE is_first_time)
    FROM old_rows GROUP BY tenant_id, session_id;
    FOR t, touched IN SELECT o.tenant_id, array_agg(DISTINCT o.contact_id ORDER BY o.contact_id) FROM old_rows o GROUP BY 1 LOOP
      PERFORM attendance_first_visit_refresh(t, touched);
    END LOOP;
  ELSE
    INSERT INTO attendance_count_pending (xid, tenant_id, session_id, present, guests, volunteers, first_time)
    SELECT pg_current_xact_id(), tenant_id, session_id, sum(d), coalesce(sum(d) FILTER (WHERE kind = 'Guest'), 0),
      coalesce(sum(d) FILTER (WHERE kind = 'Volunteer'), 0), coalesce(sum(d) FILTER (WHERE is_first_time), 0)
    FROM (
      SELECT tenant_id, session_id, kind, is_first_time, 1 AS d FROM new_rows
      UNION ALL
      SELECT tenant_id, session_id, kind, is_first_time, -1 FROM old_rows
    ) x
    GROUP BY tenant_id, session_id
    HAVING sum(d) <> 0 OR coalesce(sum(d) FILTER (WHERE kind = 'Guest'), 0) <> 0
      OR coalesce(sum(d) FILTER (WHERE kind = 'Volunteer'), 0) <> 0 OR coalesce(sum(d) FILTER (WHERE is_first_time), 0) <> 0;
    -- Only rows whose contact, date or first-time flag moved (or a first record's group) change a
    -- first visit: a group move of an event's records touches first visits only where they are first.
    FOR t, touched IN
      SELECT x.tenant_id, array_agg(DISTINCT x.contact_id ORDER BY x.contact_id) FROM (
        SELECT o.tenant_id, unnest(ARRAY[o.contact_id, n.contact_id]) AS contact_id
        FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
        WHERE o.contact_id <> n.contact_id OR o.date <> n.date OR o.is_first_time <> n.is_first_time
          OR ((o.is_first_time OR n.is_first_time) AND o.group_id IS DISTINCT FROM n.group_id)
      ) x GROUP BY 1
    LOOP
      PERFORM attendance_first_visit_refresh(t, touched);
    END LOOP;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION attendance_headcounts_count() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attendance_count_pending (xid, tenant_id, session_id, headcount)
    SELECT pg_current_xact_id(), tenant_id, session_id, sum(count) FROM new_rows GROUP BY 2, 3;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO attendance_count_pending (xid, tenant_id, session_id, headcount)
    SELECT pg_current_xact_id(), tenant_id, session_id, -sum(count) FROM old_rows GROUP BY 2, 3;
  ELSE
    INSERT INTO attendance_count_pending (xid, tenant_id, session_id, headcount)
    SELECT pg_current_xact_id(), tenant_id, session_id, sum(c) FROM (
      SELECT tenant_id, session_id, count::bigint AS c FROM new_rows
      UNION ALL
      SELECT tenant_id, session_id, -count::bigint FROM old_rows
    ) x GROUP BY 2, 3 HAVING sum(c) <> 0;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Sessions: the daily rollup is the sum of the session rows, so each session statement appends the
-- difference of its rows' (1, counters) per (date, did_not_meet): an insert adds a session, a delete
-- takes its counters away (its records' own deltas then find no session and are dropped), a
-- didNotMeet change moves them, and the commit-time counter update below carries record deltas on.
CREATE OR REPLACE FUNCTION attendance_sessions_count() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO attendance_count_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), tenant_id, date, did_not_meet, count(*), sum(present_count), sum(guest_count), sum(volunteer_count),
      sum(first_time_count), sum(headcount_total)
    FROM new_rows GROUP BY 2, 3, 4;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO attendance_count_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), tenant_id, date, did_not_meet, -count(*), -sum(present_count), -sum(guest_count), -sum(volunteer_count),
      -sum(first_time_count), -sum(headcount_total)
    FROM old_rows GROUP BY 2, 3, 4;
  ELSE
    INSERT INTO attendance_count_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), tenant_id, date, did_not_meet, sum(k), sum(k * present_count), sum(k * guest_count), sum(k * volunteer_count),
      sum(k * first_time_count), sum(k * headcount_total)
    FROM (
      SELECT tenant_id, date, did_not_meet, 1 AS k, present_count, guest_count, volunteer_count, first_time_count, headcount_total FROM new_rows
      UNION ALL
      SELECT tenant_id, date, did_not_meet, -1, present_count, guest_count, volunteer_count, first_time_count, headcount_total FROM old_rows
    ) x
    GROUP BY 2, 3, 4
    HAVING sum(k) <> 0 OR sum(k * present_count) <> 0 OR sum(k * guest_count) <> 0 OR sum(k * volunteer_count) <> 0
      OR sum(k * first_time_count) <> 0 OR sum(k * headcount_total) <> 0;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- At commit (first firing; later ones find nothing): session deltas go onto the sessions, locked in
-- key order (a session deleted in this transaction is gone: its deltas are dropped); that update's
-- own statement trigger appends the daily deltas, which then go onto attendance_daily_counts in key
-- order. A deleted tenant is skipped. SECURITY DEFINER: every delta of this transaction is applied
-- whatever role and tenant binding are in effect at commit (as contact_counts_apply).
CREATE OR REPLACE FUNCTION attendance_counts_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
BEGIN
  PERFORM 1 FROM attendance_sessions s
    WHERE (s.tenant_id, s.id) IN (SELECT p.tenant_id, p.session_id FROM attendance_count_pending p WHERE p.xid = current_xid AND p.session_id IS NOT NULL)
    ORDER BY s.tenant_id, s.id FOR NO KEY UPDATE;
  WITH moved AS (
    DELETE FROM attendance_count_pending WHERE xid = current_xid AND session_id IS NOT NULL
    RETURNING tenant_id, session_id, present, guests, volunteers, first_time, headcount
  ), d AS (
    SELECT tenant_id, session_id, sum(present) AS present, sum(guests) AS guests, sum(volunteers) AS volunteers,
      sum(first_time) AS first_time, sum(headcount) AS headcount
    FROM moved GROUP BY 1, 2
  )
  UPDATE attendance_sessions s SET present_count = s.present_count + d.present, guest_count = s.guest_count + d.guests,
    volunteer_count = s.volunteer_count + d.volunteers, first_time_count = s.first_time_count + d.first_time,
    headcount_total = s.headcount_total + d.headcount
  FROM d
  WHERE s.tenant_id = d.tenant_id AND s.id = d.session_id
    AND (d.present <> 0 OR d.guests <> 0 OR d.volunteers <> 0 OR d.first_time <> 0 OR d.headcount <> 0);
  WITH moved AS (
    DELETE FROM attendance_count_pending WHERE xid = current_xid
    RETURNING tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount
  )
  INSERT INTO attendance_daily_counts AS c (tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
  SELECT m.tenant_id, m.date, m.did_not_meet, sum(m.sessions), sum(m.present), sum(m.guests), sum(m.volunteers), sum(m.first_time), sum(m.headcount)
  FROM moved m
  WHERE m.date IS NOT NULL AND EXISTS (SELECT 1 FROM tenants t WHERE t.id = m.tenant_id)
  GROUP BY 1, 2, 3
  HAVING sum(m.sessions) <> 0 OR sum(m.present) <> 0 OR sum(m.guests) <> 0 OR sum(m.volunteers) <> 0 OR sum(m.first_time) <> 0 OR sum(m.headcount) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (tenant_id, date, did_not_meet) DO UPDATE SET sessions = c.sessions + excluded.sessions, present = c.present + excluded.present,
    guests = c.guests + excluded.guests, volunteers = c.volunteers + excluded.volunteers, first_time = c.first_time + excluded.first_time,
    headcount = c.headcount + excluded.headcount;
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_count_pending_apply ON attendance_count_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER attendance_count_pending_apply AFTER INSERT ON attendance_count_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION attendance_counts_apply();--> statement-breakpoint
-- Records and headcounts triggers first: CREATE TRIGGER locks their tables against writes until
-- the migration commits (ALTER TABLE above did the same to sessions and first visits), so no write
-- falls between the backfills below and the triggers.
DROP TRIGGER IF EXISTS attendance_records_count_insert ON attendance_records;--> statement-breakpoint
CREATE TRIGGER attendance_records_count_insert AFTER INSERT ON attendance_records
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_records_count();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_records_count_update ON attendance_records;--> statement-breakpoint
CREATE TRIGGER attendance_records_count_update AFTER UPDATE ON attendance_records
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_records_count();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_records_count_delete ON attendance_records;--> statement-breakpoint
CREATE TRIGGER attendance_records_count_delete AFTER DELETE ON attendance_records
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_records_count();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_headcounts_count_insert ON attendance_headcounts;--> statement-breakpoint
CREATE TRIGGER attendance_headcounts_count_insert AFTER INSERT ON attendance_headcounts
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_headcounts_count();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_headcounts_count_update ON attendance_headcounts;--> statement-breakpoint
CREATE TRIGGER attendance_headcounts_count_update AFTER UPDATE ON attendance_headcounts
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_headcounts_count();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_headcounts_count_delete ON attendance_headcounts;--> statement-breakpoint
CREATE TRIGGER attendance_headcounts_count_delete AFTER DELETE ON attendance_headcounts
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_headcounts_count();--> statement-breakpoint
-- Backfills (absolute values: a second run changes nothing). The sessions' own trigger is created
-- after them, so the backfill's update is not counted twice into the daily rollup built from it.
DROP TRIGGER IF EXISTS attendance_sessions_count_insert ON attendance_sessions;--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_sessions_count_update ON attendance_sessions;--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_sessions_count_delete ON attendance_sessions;--> statement-breakpoint
UPDATE attendance_sessions s SET present_count = x.present, guest_count = x.guests, volunteer_count = x.volunteers,
  first_time_count = x.first_time, headcount_total = x.headcount
FROM (
  SELECT s2.tenant_id, s2.id, coalesce(r.present, 0) AS present, coalesce(r.guests, 0) AS guests, coalesce(r.volunteers, 0) AS volunteers,
    coalesce(r.first_time, 0) AS first_time, coalesce(h.headcount, 0) AS headcount
  FROM attendance_sessions s2
  LEFT JOIN (
    SELECT tenant_id, session_id, count(*) AS present, count(*) FILTER (WHERE kind = 'Guest') AS guests,
      count(*) FILTER (WHERE kind = 'Volunteer') AS volunteers, count(*) FILTER (WHERE is_first_time) AS first_time
    FROM attendance_records GROUP BY 1, 2
  ) r ON r.tenant_id = s2.tenant_id AND r.session_id = s2.id
  LEFT JOIN (SELECT tenant_id, session_id, sum(count) AS headcount FROM attendance_headcounts GROUP BY 1, 2) h
    ON h.tenant_id = s2.tenant_id AND h.session_id = s2.id
) x
WHERE s.tenant_id = x.tenant_id AND s.id = x.id
  AND (s.present_count, s.guest_count, s.volunteer_count, s.first_time_count, s.headcount_total)
    IS DISTINCT FROM (x.present::int, x.guests::int, x.volunteers::int, x.first_time::int, x.headcount::bigint);--> statement-breakpoint
DELETE FROM attendance_daily_counts;--> statement-breakpoint
INSERT INTO attendance_daily_counts (tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
SELECT tenant_id, date, did_not_meet, count(*), sum(present_count), sum(guest_count), sum(volunteer_count), sum(first_time_count), sum(headcount_total)
FROM attendance_sessions GROUP BY 1, 2, 3;--> statement-breakpoint
UPDATE contact_first_visits f SET visits = x.visits, returned_on = x.returned_on, group_id = x.group_id, first_kept = x.kept
FROM (
  SELECT fv.tenant_id, fv.contact_id, count(r.id)::int AS visits,
    min(r.date) FILTER (WHERE NOT r.is_first_time AND r.date >= fv.date) AS returned_on,
    max(r.group_id) FILTER (WHERE r.id = fv.record_id) AS group_id, coalesce(bool_or(r.id = fv.record_id), false) AS kept
  FROM contact_first_visits fv
  LEFT JOIN attendance_records r ON r.tenant_id = fv.tenant_id AND r.contact_id = fv.contact_id
  GROUP BY 1, 2
) x
WHERE f.tenant_id = x.tenant_id AND f.contact_id = x.contact_id
  AND (f.visits, f.returned_on, f.group_id, f.first_kept) IS DISTINCT FROM (x.visits, x.returned_on, x.group_id, x.kept);--> statement-breakpoint
CREATE TRIGGER attendance_sessions_count_insert AFTER INSERT ON attendance_sessions
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_sessions_count();--> statement-breakpoint
CREATE TRIGGER attendance_sessions_count_update AFTER UPDATE ON attendance_sessions
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_sessions_count();--> statement-breakpoint
CREATE TRIGGER attendance_sessions_count_delete AFTER DELETE ON attendance_sessions
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_sessions_count();
