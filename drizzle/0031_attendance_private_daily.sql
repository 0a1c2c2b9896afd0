-- Issue 15: the dashboard of a caller without hierarchy:all (a Zone leader) read the sessions of
-- every group hidden from them to take them off the church's days (attendance_daily_counts): on the
-- large bench tenant 1,014 non-public groups, 6,600 sessions over 8 weeks, ~20 ms. Every Public group
-- is visible to everyone, so what a caller may not see is always among the non-public groups:
--   attendance_private_daily_counts  attendance_daily_counts restricted to the sessions of non-public
--       groups, per (tenant, date, did_not_meet);
-- and a caller's days are the church's, less the non-public groups', plus the sessions of the few
-- non-public groups they do see (their led subtrees' and their own), read per group as before.
-- Kept by the database as attendance_daily_counts is (0015, 0025): statement triggers on sessions
-- (insert, delete, and updates of their group, date, did_not_meet or counters, which the commit-time
-- apply of 0015 writes) queue the deltas of the sessions whose group is non-public in
-- attendance_private_pending, with no lock on a shared row; a deferred constraint trigger applies
-- them once per transaction at commit, in key order. A group that turns Public or non-Public moves
-- its sessions' counters (its sessions locked first: a check-in committing into one of them is
-- counted either before or after the move, never twice or not at all); a new session locks its
-- group FOR SHARE against a concurrent change of privacy. A deleted non-public group takes its
-- sessions off before the cascade deletes them (the sessions' own trigger then finds no group).
-- Written to run twice (IF NOT EXISTS, CREATE OR REPLACE, an absolute backfill).
CREATE TABLE IF NOT EXISTS "attendance_private_daily_counts" (
	"tenant_id" bigint NOT NULL,
	"date" date NOT NULL,
	"did_not_meet" boolean NOT NULL,
	"sessions" bigint NOT NULL,
	"present" bigint NOT NULL,
	"guests" bigint NOT NULL,
	"volunteers" bigint NOT NULL,
	"first_time" bigint NOT NULL,
	"headcount" bigint NOT NULL,
	CONSTRAINT "attendance_private_daily_counts_pk" PRIMARY KEY("tenant_id","date","did_not_meet"),
	CONSTRAINT "attendance_private_daily_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action
);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "attendance_private_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"date" date NOT NULL,
	"did_not_meet" boolean NOT NULL,
	"sessions" bigint NOT NULL,
	"present" bigint NOT NULL,
	"guests" bigint NOT NULL,
	"volunteers" bigint NOT NULL,
	"first_time" bigint NOT NULL,
	"headcount" bigint NOT NULL,
	"apply" boolean DEFAULT pending_apply_first('attendance_private') NOT NULL
);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "attendance_private_pending_xid_idx" ON "attendance_private_pending" USING btree ("xid");--> statement-breakpoint
-- Sessions: the deltas of (1, counters) of the rows whose group is non-public now, per (date,
-- did_not_meet); an update that moves none (notes) queues nothing (a trigger with transition tables
-- takes no column list). A new session (or one moved to another group) first locks its group FOR SHARE, so a
-- concurrent change of that group's privacy either sees the session committed or commits before it.
CREATE OR REPLACE FUNCTION attendance_private_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM groups g WHERE (g.tenant_id, g.id) IN (SELECT n.tenant_id, n.group_id FROM new_rows n)
      ORDER BY g.tenant_id, g.id FOR SHARE;
    INSERT INTO attendance_private_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), n.tenant_id, n.date, n.did_not_meet, count(*), sum(n.present_count), sum(n.guest_count), sum(n.volunteer_count),
      sum(n.first_time_count), sum(n.headcount_total)
    FROM new_rows n JOIN groups g ON g.tenant_id = n.tenant_id AND g.id = n.group_id AND g.privacy <> 'Public'
    GROUP BY 2, 3, 4;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO attendance_private_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), o.tenant_id, o.date, o.did_not_meet, -count(*), -sum(o.present_count), -sum(o.guest_count), -sum(o.volunteer_count),
      -sum(o.first_time_count), -sum(o.headcount_total)
    FROM old_rows o JOIN groups g ON g.tenant_id = o.tenant_id AND g.id = o.group_id AND g.privacy <> 'Public'
    GROUP BY 2, 3, 4;
  ELSE
    PERFORM 1 FROM groups g WHERE (g.tenant_id, g.id) IN (
        SELECT n.tenant_id, n.group_id FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id
        WHERE n.group_id IS DISTINCT FROM o.group_id)
      ORDER BY g.tenant_id, g.id FOR SHARE;
    INSERT INTO attendance_private_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), x.tenant_id, x.date, x.did_not_meet, sum(k), sum(k * present_count), sum(k * guest_count), sum(k * volunteer_count),
      sum(k * first_time_count), sum(k * headcount_total)
    FROM (
      SELECT tenant_id, group_id, date, did_not_meet, 1 AS k, present_count, guest_count, volunteer_count, first_time_count, headcount_total FROM new_rows
      UNION ALL
      SELECT tenant_id, group_id, date, did_not_meet, -1, present_count, guest_count, volunteer_count, first_time_count, headcount_total FROM old_rows
    ) x
    JOIN groups g ON g.tenant_id = x.tenant_id AND g.id = x.group_id AND g.privacy <> 'Public'
    GROUP BY 2, 3, 4
    HAVING sum(k) <> 0 OR sum(k * present_count) <> 0 OR sum(k * guest_count) <> 0 OR sum(k * volunteer_count) <> 0
      OR sum(k * first_time_count) <> 0 OR sum(k * headcount_total) <> 0;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- A group's privacy crossing Public (either way), or a non-public group deleted (BEFORE: the cascade
-- then deletes its sessions): its sessions' counters, locked so that a commit-time counter update
-- into one of them is counted on one side of the move only.
CREATE OR REPLACE FUNCTION attendance_private_group() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
DECLARE
  k integer;
  grp groups;
BEGIN
  IF TG_OP = 'DELETE' THEN
    k := -1;
    grp := OLD;
  ELSE
    k := CASE WHEN NEW.privacy <> 'Public' THEN 1 ELSE -1 END;
    grp := NEW;
  END IF;
  INSERT INTO attendance_private_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
  SELECT pg_current_xact_id(), grp.tenant_id, s.date, s.did_not_meet, k * count(*), k * sum(s.present_count), k * sum(s.guest_count),
    k * sum(s.volunteer_count), k * sum(s.first_time_count), k * sum(s.headcount_total)
  FROM (
    SELECT x.date, x.did_not_meet, x.present_count, x.guest_count, x.volunteer_count, x.first_time_count, x.headcount_total
    FROM attendance_sessions x WHERE x.tenant_id = grp.tenant_id AND x.group_id = grp.id
    ORDER BY x.id FOR NO KEY UPDATE
  ) s
  GROUP BY 3, 4;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NULL END;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION attendance_private_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
BEGIN
  WITH moved AS (
    DELETE FROM attendance_private_pending WHERE xid = current_xid
    RETURNING tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount
  )
  INSERT INTO attendance_private_daily_counts AS c (tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
  SELECT m.tenant_id, m.date, m.did_not_meet, sum(m.sessions), sum(m.present), sum(m.guests), sum(m.volunteers), sum(m.first_time), sum(m.headcount)
  FROM moved m
  WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = m.tenant_id)
  GROUP BY 1, 2, 3
  HAVING sum(m.sessions) <> 0 OR sum(m.present) <> 0 OR sum(m.guests) <> 0 OR sum(m.volunteers) <> 0 OR sum(m.first_time) <> 0 OR sum(m.headcount) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (tenant_id, date, did_not_meet) DO UPDATE SET sessions = c.sessions + excluded.sessions, present = c.present + excluded.present,
    guests = c.guests + excluded.guests, volunteers = c.volunteers + excluded.volunteers, first_time = c.first_time + excluded.first_time,
    headcount = c.headcount + excluded.headcount;
  PERFORM set_config('parish.pending_attendance_private', '', true);
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_private_pending_apply ON attendance_private_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER attendance_private_pending_apply AFTER INSERT ON attendance_private_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION attendance_private_apply();--> statement-breakpoint
-- CREATE TRIGGER locks sessions and groups against writes until this migration commits, so no write
-- falls between the triggers and the backfill below.
DROP TRIGGER IF EXISTS attendance_private_insert ON attendance_sessions;--> statement-breakpoint
CREATE TRIGGER attendance_private_insert AFTER INSERT ON attendance_sessions
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_private_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_private_update ON attendance_sessions;--> statement-breakpoint
CREATE TRIGGER attendance_private_update AFTER UPDATE ON attendance_sessions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_private_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_private_delete ON attendance_sessions;--> statement-breakpoint
CREATE TRIGGER attendance_private_delete AFTER DELETE ON attendance_sessions
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attendance_private_track();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_private_group_privacy ON groups;--> statement-breakpoint
CREATE TRIGGER attendance_private_group_privacy AFTER UPDATE OF privacy ON groups
FOR EACH ROW WHEN ((OLD.privacy = 'Public') IS DISTINCT FROM (NEW.privacy = 'Public')) EXECUTE FUNCTION attendance_private_group();--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_private_group_delete ON groups;--> statement-breakpoint
CREATE TRIGGER attendance_private_group_delete BEFORE DELETE ON groups
FOR EACH ROW WHEN (OLD.privacy <> 'Public') EXECUTE FUNCTION attendance_private_group();--> statement-breakpoint
DELETE FROM attendance_private_pending;--> statement-breakpoint
DELETE FROM attendance_private_daily_counts;--> statement-breakpoint
INSERT INTO attendance_private_daily_counts (tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
SELECT s.tenant_id, s.date, s.did_not_meet, count(*), sum(s.present_count), sum(s.guest_count), sum(s.volunteer_count), sum(s.first_time_count), sum(s.headcount_total)
FROM attendance_sessions s JOIN groups g ON g.tenant_id = s.tenant_id AND g.id = s.group_id AND g.privacy <> 'Public'
GROUP BY 1, 2, 3;
