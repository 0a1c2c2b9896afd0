CREATE TABLE "group_count_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"privacy" text NOT NULL,
	"n" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "group_counts" (
	"tenant_id" bigint NOT NULL,
	"privacy" text NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "group_counts_tenant_id_privacy_pk" PRIMARY KEY("tenant_id","privacy")
);
--> statement-breakpoint
ALTER TABLE "group_counts" ADD CONSTRAINT "group_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "group_count_pending_xid_idx" ON "group_count_pending" USING btree ("xid");--> statement-breakpoint
CREATE INDEX "groups_private_path_idx" ON "groups" USING btree ("tenant_id","path" text_pattern_ops) WHERE "groups"."privacy" <> 'Public';--> statement-breakpoint
-- group_counts: groups per (tenant, privacy), the design of contact_counts (0004 + 0005) on its own
-- small pending table. The statement triggers only append their deltas to group_count_pending
-- (plain inserts: no counter row lock while the transaction runs), aggregated per statement (an
-- import batch appends one row per privacy); zero deltas (a rename, a move) append nothing.
-- SECURITY INVOKER: the writer's row level security applies.
CREATE FUNCTION group_counts_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO group_count_pending (xid, tenant_id, privacy, n)
    SELECT pg_current_xact_id(), tenant_id, privacy, count(*) FROM new_rows
    GROUP BY 2, 3;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO group_count_pending (xid, tenant_id, privacy, n)
    SELECT pg_current_xact_id(), tenant_id, privacy, sum(d) FROM (
      SELECT tenant_id, privacy, 1 AS d FROM new_rows
      UNION ALL
      SELECT tenant_id, privacy, -1 FROM old_rows
    ) AS x
    GROUP BY 2, 3 HAVING sum(d) <> 0;
  ELSE
    INSERT INTO group_count_pending (xid, tenant_id, privacy, n)
    SELECT pg_current_xact_id(), tenant_id, privacy, -count(*) FROM old_rows
    GROUP BY 2, 3;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER group_counts_insert AFTER INSERT ON groups
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION group_counts_track();
--> statement-breakpoint
CREATE TRIGGER group_counts_update AFTER UPDATE ON groups
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION group_counts_track();
--> statement-breakpoint
CREATE TRIGGER group_counts_delete AFTER DELETE ON groups
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION group_counts_track();
--> statement-breakpoint
-- At commit, as contact_counts_apply (0005): the first firing moves ALL of this transaction's rows,
-- counter rows are locked in key order, a deleted tenant is skipped (its counter rows went with it).
-- SECURITY DEFINER: every delta of this transaction is applied, whatever role is in effect at commit.
CREATE FUNCTION group_counts_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
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
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER group_count_pending_apply AFTER INSERT ON group_count_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION group_counts_apply();
--> statement-breakpoint
-- Existing databases: count once. CREATE TRIGGER locked groups against writes until this migration
-- commits, so no write falls between the count and the triggers.
INSERT INTO group_counts (tenant_id, privacy, n)
SELECT tenant_id, privacy, count(*) FROM groups GROUP BY 1, 2;
