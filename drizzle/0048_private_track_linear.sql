-- attendance_private_track (0031): the same rows queued, planned at each call. Its statements name
-- no parameters, only the transition tables, and PL/pgSQL keeps a parameterless statement's first plan
-- for the connection's life (no custom plans without parameters): a plan made for a statement of a
-- few sessions, a nested loop, was used for the next one of thousands. Issue 35's bench load updated
-- the counts of 12,584 sessions at one commit (the small size's weekly meetings) on a connection
-- that had planned the join for a few: 37 s in this function; at large, after five small tenants on
-- the same connections, 40 s. Each statement now runs by EXECUTE, planned with its transition tables'
-- real sizes (as giving_lines_track, 0016), for a plan per statement (well under a millisecond).
-- The update branch finds the groups sessions moved into by an aggregate over both transition tables
-- (+1 new, -1 old: a session whose group is unchanged sums to 0) rather than a join of new_rows to
-- old_rows on the session's id; same groups. test/dashboard/dashboard.private.test.ts moves sessions
-- between groups. Can run twice (OR REPLACE).
CREATE OR REPLACE FUNCTION attendance_private_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE $q$SELECT 1 FROM groups g WHERE (g.tenant_id, g.id) IN (SELECT n.tenant_id, n.group_id FROM new_rows n)
      ORDER BY g.tenant_id, g.id FOR SHARE $q$;
    EXECUTE $q$INSERT INTO attendance_private_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), n.tenant_id, n.date, n.did_not_meet, count(*), sum(n.present_count), sum(n.guest_count), sum(n.volunteer_count),
      sum(n.first_time_count), sum(n.headcount_total)
    FROM new_rows n JOIN groups g ON g.tenant_id = n.tenant_id AND g.id = n.group_id AND g.privacy <> 'Public'
    GROUP BY 2, 3, 4 $q$;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE $q$INSERT INTO attendance_private_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
    SELECT pg_current_xact_id(), o.tenant_id, o.date, o.did_not_meet, -count(*), -sum(o.present_count), -sum(o.guest_count), -sum(o.volunteer_count),
      -sum(o.first_time_count), -sum(o.headcount_total)
    FROM old_rows o JOIN groups g ON g.tenant_id = o.tenant_id AND g.id = o.group_id AND g.privacy <> 'Public'
    GROUP BY 2, 3, 4 $q$;
  ELSE
    -- The groups sessions moved into: a session counted +1 in its new group and -1 in its old one
    -- leaves +1 where its group changed (no join of new_rows to old_rows, see above).
    EXECUTE $q$SELECT 1 FROM groups g WHERE (g.tenant_id, g.id) IN (
        SELECT x.tenant_id, x.group_id FROM (
          SELECT tenant_id, id, group_id, 1 AS k FROM new_rows UNION ALL SELECT tenant_id, id, group_id, -1 FROM old_rows
        ) x GROUP BY x.tenant_id, x.id, x.group_id HAVING sum(x.k) > 0)
      ORDER BY g.tenant_id, g.id FOR SHARE $q$;
    EXECUTE $q$INSERT INTO attendance_private_pending (xid, tenant_id, date, did_not_meet, sessions, present, guests, volunteers, first_time, headcount)
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
      OR sum(k * first_time_count) <> 0 OR sum(k * headcount_total) <> 0 $q$;
  END IF;
  RETURN NULL;
END
$$;
