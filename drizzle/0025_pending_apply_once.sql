-- The deferred "apply at commit" triggers of the four counter queues fired once per queued row: the
-- first firing moves all of the transaction's rows, and every later one scanned their xid index
-- entries again (dead, but still in the index, each checked against the running transaction), so a
-- commit cost grew with the square of its queued rows: 5,000 rows 3.75 s, 10,000 10.3 s, 20,000 48.8 s
-- (PostgreSQL 15). Requests queue a handful of rows; a bulk load in one transaction never committed.
-- Now a queued row fires the apply only when it is the first queued since the last apply of this
-- transaction (a transaction-local marker, reverted with a rolled-back savepoint); the apply clears
-- the marker when done, so a row queued after it fires it again. Rows queued by the apply's own
-- statements (attendance's daily deltas) are moved by that same apply, as before.
CREATE OR REPLACE FUNCTION pending_apply_first(p_queue text) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
AS $$
DECLARE
  me text := pg_current_xact_id()::text;
BEGIN
  IF current_setting('parish.pending_' || p_queue, true) IS NOT DISTINCT FROM me THEN
    RETURN false;
  END IF;
  PERFORM set_config('parish.pending_' || p_queue, me, true);
  RETURN true;
END
$$;--> statement-breakpoint
ALTER TABLE "contact_count_pending" ADD COLUMN IF NOT EXISTS "apply" boolean DEFAULT pending_apply_first('contact') NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.contact_counts_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
BEGIN
  WITH moved AS (
    DELETE FROM contact_count_pending WHERE xid = current_xid
    RETURNING tenant_id, category, status, n
  )
  INSERT INTO contact_counts AS c (tenant_id, category, status, n)
  SELECT m.tenant_id, m.category, m.status, sum(m.n)::bigint FROM moved AS m
  WHERE EXISTS (SELECT 1 FROM tenants AS t WHERE t.id = m.tenant_id)
  GROUP BY 1, 2, 3 HAVING sum(m.n) <> 0 ORDER BY 1, 2, 3
  ON CONFLICT (tenant_id, category, status) DO UPDATE SET n = c.n + excluded.n;
  PERFORM set_config('parish.pending_contact', '', true);
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS contact_count_pending_apply ON contact_count_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER contact_count_pending_apply AFTER INSERT ON contact_count_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION contact_counts_apply();--> statement-breakpoint
ALTER TABLE "group_count_pending" ADD COLUMN IF NOT EXISTS "apply" boolean DEFAULT pending_apply_first('group') NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.group_counts_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
BEGIN
  WITH moved AS (
    DELETE FROM group_count_pending WHERE xid = current_xid
    RETURNING tenant_id, privacy, n
  )
  INSERT INTO group_counts AS c (tenant_id, privacy, n)
  SELECT m.tenant_id, m.privacy, sum(m.n)::bigint FROM moved AS m
  WHERE EXISTS (SELECT 1 FROM tenants AS t WHERE t.id = m.tenant_id)
  GROUP BY 1, 2 HAVING sum(m.n) <> 0 ORDER BY 1, 2
  ON CONFLICT (tenant_id, privacy) DO UPDATE SET n = c.n + excluded.n;
  PERFORM set_config('parish.pending_group', '', true);
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS group_count_pending_apply ON group_count_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER group_count_pending_apply AFTER INSERT ON group_count_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION group_counts_apply();--> statement-breakpoint
ALTER TABLE "attendance_count_pending" ADD COLUMN IF NOT EXISTS "apply" boolean DEFAULT pending_apply_first('attendance') NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.attendance_counts_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
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
  PERFORM set_config('parish.pending_attendance', '', true);
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS attendance_count_pending_apply ON attendance_count_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER attendance_count_pending_apply AFTER INSERT ON attendance_count_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION attendance_counts_apply();--> statement-breakpoint
ALTER TABLE "task_unassigned_pending" ADD COLUMN IF NOT EXISTS "apply" boolean DEFAULT pending_apply_first('task_unassigned') NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION public.task_unassigned_apply()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
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
  PERFORM set_config('parish.pending_task_unassigned', '', true);
  RETURN NULL;
END
$$;--> statement-breakpoint
DROP TRIGGER IF EXISTS task_unassigned_pending_apply ON task_unassigned_pending;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER task_unassigned_pending_apply AFTER INSERT ON task_unassigned_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION task_unassigned_apply();
