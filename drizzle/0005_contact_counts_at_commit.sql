CREATE TABLE "contact_count_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"category" text NOT NULL,
	"status" text NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "contact_count_pending_xid_idx" ON "contact_count_pending" USING btree ("xid");
--> statement-breakpoint
-- 0004 upserted contact_counts inside each writing statement, so a writer held its counter rows'
-- locks until commit: two transactions creating contacts in one tenant ran one after the other.
-- Now the statement triggers only append their deltas to contact_count_pending (plain inserts, no
-- contention), and the deferred constraint trigger below applies them at commit: counter row locks
-- are held from commit time to the end of the commit only, and taken in key order, so two
-- committing transactions cannot deadlock. Deltas are still aggregated per statement (a 500-row
-- import batch appends one row per key it touches); zero deltas (the search-column refresh after
-- every write) append nothing. Only visible after commit: nothing reads the counters inside the
-- transaction that wrote the contacts.
-- contact_count_pending is a plain (logged) table. UNLOGGED would lose nothing committed (its rows
-- never outlive their transaction, and crash recovery resets it to the empty state it has after
-- every commit), but it saves little next to the WAL of the contact rows themselves, and
-- drizzle-kit can neither express nor see it.
-- SECURITY INVOKER: the writer's row level security applies, as in 0004.
CREATE OR REPLACE FUNCTION contact_counts_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO contact_count_pending (xid, tenant_id, category, status, n)
    SELECT pg_current_xact_id(), tenant_id, category, status, count(*) FROM new_rows
    GROUP BY 2, 3, 4;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO contact_count_pending (xid, tenant_id, category, status, n)
    SELECT pg_current_xact_id(), tenant_id, category, status, sum(d) FROM (
      SELECT tenant_id, category, status, 1 AS d FROM new_rows
      UNION ALL
      SELECT tenant_id, category, status, -1 FROM old_rows
    ) AS x
    GROUP BY 2, 3, 4 HAVING sum(d) <> 0;
  ELSE
    INSERT INTO contact_count_pending (xid, tenant_id, category, status, n)
    SELECT pg_current_xact_id(), tenant_id, category, status, -count(*) FROM old_rows
    GROUP BY 2, 3, 4;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Fires at commit once per pending row; the first firing moves ALL of this transaction's rows
-- (DELETE ... RETURNING), so the later ones find nothing. ORDER BY: counter rows are locked in key
-- order. A tenant deleted in this transaction (or before it) is skipped: its counter rows went with
-- it (ON DELETE CASCADE), and its contacts' delete deltas have nothing left to apply to.
-- SECURITY DEFINER (as the owner, whom row level security does not apply to): every delta this
-- transaction appended is applied, whatever role and tenant binding are in effect at commit (a
-- transaction may write as the owner first and bind a tenant later, as tenant creation does).
-- The rows it moves were written by this transaction's own triggers, under the writer's RLS.
CREATE FUNCTION contact_counts_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
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
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER contact_count_pending_apply AFTER INSERT ON contact_count_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION contact_counts_apply();
