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
-- between groups.
--
-- retention_track (0027), the same rows queued, each statement by EXECUTE too, for the same reason: its
-- groups branch joins old_rows to new_rows and the members, and the bench generator's one UPDATE of
-- 20,000 groups' paths (huge) spent 63 s in it (a nested loop over every pair; 2.7 s for large's
-- 5,000), as would a move of a big subtree. test/reports/retention.facts.test.ts covers its branches.
-- Can run twice (OR REPLACE).
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
--> statement-breakpoint
CREATE OR REPLACE FUNCTION retention_track()
 RETURNS trigger
 LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_TABLE_NAME = 'attendance_records' THEN
    -- New first visits (0008's row trigger marked the record that made one).
    EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n WHERE n.is_first_time $q$;
  ELSIF TG_TABLE_NAME = 'contact_first_visits' THEN
    IF TG_OP = 'DELETE' THEN
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o $q$;
    ELSE
      -- Rows whose funnel columns changed, and both contacts of a row moved to another contact.
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
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
      ) x $q$;
    END IF;
  ELSIF TG_TABLE_NAME = 'group_memberships' THEN
    IF TG_OP = 'INSERT' THEN
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n WHERE n.is_active $q$;
    ELSIF TG_OP = 'DELETE' THEN
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o WHERE o.is_active $q$;
    ELSE
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), x.tenant_id, x.contact_id FROM (
        SELECT o.tenant_id, unnest(ARRAY[o.contact_id, n.contact_id]) AS contact_id
        FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
        WHERE (o.contact_id, o.group_id, o.is_active) IS DISTINCT FROM (n.contact_id, n.group_id, n.is_active)
      ) x $q$;
    END IF;
  ELSIF TG_TABLE_NAME = 'contact_occasions' THEN
    -- Only Baptism rows make a fact.
    IF TG_OP = 'INSERT' THEN
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n WHERE n.type = 'Baptism' $q$;
    ELSIF TG_OP = 'DELETE' THEN
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o WHERE o.type = 'Baptism' $q$;
    ELSE
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), x.tenant_id, x.contact_id FROM (
        SELECT o.tenant_id, unnest(ARRAY[o.contact_id, n.contact_id]) AS contact_id
        FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
        WHERE (o.type = 'Baptism' OR n.type = 'Baptism') AND (o.contact_id, o.type) IS DISTINCT FROM (n.contact_id, n.type)
      ) x $q$;
    END IF;
  ELSIF TG_TABLE_NAME = 'event_activity_contacts' THEN
    -- The activity's type is read at commit (an activity deleted by cascade is gone by then).
    IF TG_OP = 'INSERT' THEN
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), n.tenant_id, n.contact_id FROM new_rows n $q$;
    ELSIF TG_OP = 'DELETE' THEN
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), o.tenant_id, o.contact_id FROM old_rows o $q$;
    ELSE
      EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
      SELECT DISTINCT pg_current_xact_id(), x.tenant_id, x.contact_id FROM (
        SELECT n.tenant_id, n.contact_id FROM new_rows n UNION ALL SELECT o.tenant_id, o.contact_id FROM old_rows o
      ) x $q$;
    END IF;
  ELSIF TG_TABLE_NAME = 'groups' THEN
    -- A group's category (serving): its active members.
    EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), m.tenant_id, m.contact_id
    FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
    JOIN group_memberships m ON m.tenant_id = n.tenant_id AND m.group_id = n.id AND m.is_active
    WHERE o.category_id IS DISTINCT FROM n.category_id $q$;
  ELSIF TG_TABLE_NAME = 'group_categories' THEN
    -- A category's purpose: the active members of its groups.
    EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), m.tenant_id, m.contact_id
    FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
    JOIN groups g ON g.tenant_id = n.tenant_id AND g.category_id = n.id
    JOIN group_memberships m ON m.tenant_id = g.tenant_id AND m.group_id = g.id AND m.is_active
    WHERE o.purpose IS DISTINCT FROM n.purpose $q$;
  ELSIF TG_TABLE_NAME = 'event_activities' THEN
    -- An activity's type (baptism): its contacts.
    EXECUTE $q$INSERT INTO retention_pending (xid, tenant_id, contact_id)
    SELECT DISTINCT pg_current_xact_id(), ac.tenant_id, ac.contact_id
    FROM old_rows o JOIN new_rows n ON n.tenant_id = o.tenant_id AND n.id = o.id
    JOIN event_activity_contacts ac ON ac.tenant_id = n.tenant_id AND ac.activity_id = n.id
    WHERE o.activity_type IS DISTINCT FROM n.activity_type $q$;
  END IF;
  RETURN NULL;
END
$$;
