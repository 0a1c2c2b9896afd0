-- Giving rollups (src/db/schema/finance.ts), kept by triggers so no write path (the finance service,
-- imports, refunds, contact merges and erasure, a contact's deletion setting contact_id null) can
-- forget them. Read in one place: src/modules/finance/giving.rollups.ts.
--
-- A contribution's footprint is, for each fund of its lines and for "all funds" (fund_id 0):
-- net (lines' amount minus refunded), gifts (1 when its status is not Refunded) and entries (1), at
-- its date, method and contact. The statement triggers append the change of footprints to
-- giving_pending (plain inserts: no rollup row is locked while the transaction runs, as
-- contact_count_pending in 0005); a deferred constraint trigger applies them at commit in key order.
--   giving_days: per tenant × date × fund (0 = all) × method: net, gifts, entries (sums over any window,
--     exact by day; entries also give the contributions list its total).
--   giving_donor_periods: per tenant × kind (month, week) × year × fund (0 = all) × donor: gifts per
--     period of the year (n[1..12] months; n[1..53] weeks starting on Sunday, by the year of their
--     Sunday), so "donors in a period" and "distinct donors of a window" are counts over one row per donor.
-- Every statement of this file can run twice (IF NOT EXISTS, OR REPLACE, backfill overwriting).
CREATE TABLE IF NOT EXISTS "giving_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"date" date NOT NULL,
	"method" text NOT NULL,
	"contact_id" bigint,
	"fund_id" bigint NOT NULL,
	"net" bigint NOT NULL,
	"gifts" integer NOT NULL,
	"entries" integer NOT NULL,
	"apply" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "giving_pending_xid_idx" ON "giving_pending" USING btree ("xid");
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "giving_days" (
	"tenant_id" bigint NOT NULL,
	"date" date NOT NULL,
	"fund_id" bigint NOT NULL,
	"method" text NOT NULL,
	"net" bigint NOT NULL,
	"gifts" integer NOT NULL,
	"entries" integer NOT NULL,
	CONSTRAINT "giving_days_pk" PRIMARY KEY("tenant_id","fund_id","date","method"),
	CONSTRAINT "giving_days_tenant_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "giving_donor_periods" (
	"tenant_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"year" integer NOT NULL,
	"fund_id" bigint NOT NULL,
	"contact_id" bigint NOT NULL,
	"n" integer[] NOT NULL,
	CONSTRAINT "giving_donor_periods_pk" PRIMARY KEY("tenant_id","kind","fund_id","year","contact_id"),
	CONSTRAINT "giving_donor_periods_tenant_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade
);
--> statement-breakpoint
-- An array of `len` integers: n[i] at idx[i], 0 elsewhere.
CREATE OR REPLACE FUNCTION giving_period_array(len integer, idx integer[], n bigint[]) RETURNS integer[]
LANGUAGE sql IMMUTABLE
AS $$
  SELECT array_agg(coalesce(x.n, 0)::integer ORDER BY i) FROM generate_series(1, len) AS i
  LEFT JOIN unnest(idx, n) AS x(idx, n) ON x.idx = i
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION giving_array_add(a integer[], b integer[]) RETURNS integer[]
LANGUAGE sql IMMUTABLE
AS $$
  SELECT array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i)
$$;
--> statement-breakpoint
-- Line statements: the changed lines (+1 new, -1 old) per contribution and fund (ROLLUP: fund null =
-- all funds); a gift/entry appears when the group had no line before and has one now, and goes when
-- the last one goes (lines now counted in the table). EXECUTE: one query for the three operations
-- (the transition tables are visible to it).
CREATE OR REPLACE FUNCTION giving_lines_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT tenant_id, contribution_id, fund_id, amount - refunded_amount AS net, 1 AS k FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT tenant_id, contribution_id, fund_id, refunded_amount - amount AS net, -1 AS k FROM old_rows'
    ELSE 'SELECT tenant_id, contribution_id, fund_id, amount - refunded_amount AS net, 1 AS k FROM new_rows
          UNION ALL SELECT tenant_id, contribution_id, fund_id, refunded_amount - amount, -1 FROM old_rows' END;
BEGIN
  EXECUTE format($q$
    WITH d AS (%s), g AS (
      SELECT tenant_id, contribution_id, fund_id, sum(net) AS net, sum(k) AS k FROM d
      GROUP BY tenant_id, contribution_id, ROLLUP (fund_id)
    ), x AS (
      SELECT g.*, (SELECT count(*) FROM contribution_lines l WHERE l.tenant_id = g.tenant_id AND l.contribution_id = g.contribution_id
        AND (g.fund_id IS NULL OR l.fund_id = g.fund_id)) AS now_n
      FROM g
    )
    INSERT INTO giving_pending (xid, tenant_id, date, method, contact_id, fund_id, net, gifts, entries, apply)
    SELECT pg_current_xact_id(), c.tenant_id, c.date, c.method, c.contact_id, coalesce(x.fund_id, 0), sum(x.net),
      sum(((x.now_n > 0)::int - (x.now_n - x.k > 0)::int) * (c.status <> 'Refunded')::int),
      sum((x.now_n > 0)::int - (x.now_n - x.k > 0)::int), row_number() OVER () = 1
    FROM x JOIN contributions c ON c.tenant_id = x.tenant_id AND c.id = x.contribution_id
    GROUP BY 2, 3, 4, 5, 6
    HAVING sum(x.net) <> 0 OR sum((x.now_n > 0)::int - (x.now_n - x.k > 0)::int) <> 0
      OR sum(((x.now_n > 0)::int - (x.now_n - x.k > 0)::int) * (c.status <> 'Refunded')::int) <> 0
  $q$, changed);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Contribution updates that move a footprint (date, method, contact or status changed): the old
-- footprint out, the new one in, with the lines as they are (a statement changes one table).
CREATE OR REPLACE FUNCTION giving_contributions_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  INSERT INTO giving_pending (xid, tenant_id, date, method, contact_id, fund_id, net, gifts, entries, apply)
  SELECT pg_current_xact_id(), c.tenant_id, c.date, c.method, c.contact_id, coalesce(f.fund_id, 0), sum(f.net * c.s),
    sum((c.status <> 'Refunded')::int * c.s), sum(c.s), row_number() OVER () = 1
  FROM (
    SELECT n.*, 1 AS s FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id
    WHERE (o.date, o.method, o.contact_id, o.status) IS DISTINCT FROM (n.date, n.method, n.contact_id, n.status)
    UNION ALL
    SELECT o.*, -1 FROM old_rows o JOIN new_rows n ON o.tenant_id = n.tenant_id AND o.id = n.id
    WHERE (o.date, o.method, o.contact_id, o.status) IS DISTINCT FROM (n.date, n.method, n.contact_id, n.status)
  ) AS c
  CROSS JOIN LATERAL (
    SELECT l.fund_id, sum(l.amount - l.refunded_amount) AS net FROM contribution_lines l
    WHERE l.tenant_id = c.tenant_id AND l.contribution_id = c.id GROUP BY ROLLUP (l.fund_id)
    HAVING count(*) > 0 -- a contribution without lines has no footprint (ROLLUP would give a null total)
  ) AS f
  GROUP BY 2, 3, 4, 5, 6
  HAVING sum(f.net * c.s) <> 0 OR sum((c.status <> 'Refunded')::int * c.s) <> 0 OR sum(c.s) <> 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- A deleted contribution's lines go first, while it is still there to say its date and contact (the
-- cascade would delete them after it). Skipped when its tenant is being deleted (the rollups go with it).
CREATE OR REPLACE FUNCTION giving_contribution_delete() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM tenants t WHERE t.id = OLD.tenant_id) THEN
    DELETE FROM contribution_lines WHERE tenant_id = OLD.tenant_id AND contribution_id = OLD.id;
  END IF;
  RETURN OLD;
END
$$;
--> statement-breakpoint
-- At commit, as contact_counts_apply (0005): the first firing moves ALL of this transaction's rows,
-- rows are locked in key order, a deleted tenant is skipped. SECURITY DEFINER: every delta of this
-- transaction is applied, whatever role is in effect at commit. Donor rows change element by element
-- (n[i] = n[i] + d, built-ins only: a 10,000-gift import touches tens of thousands of them), one
-- pass per rank of a (donor, year, fund)'s periods in this transaction (usually one pass), through a
-- session temporary table.
CREATE OR REPLACE FUNCTION giving_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
  passes integer;
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS giving_apply_rows (
    tenant_id bigint, kind text, year integer, fund_id bigint, contact_id bigint, idx integer, n integer, pass integer
  );
  WITH moved AS (
    DELETE FROM giving_pending WHERE xid = current_xid RETURNING *
  ), live AS (
    SELECT m.* FROM moved m WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = m.tenant_id)
  ), days AS (
    INSERT INTO giving_days AS g (tenant_id, date, fund_id, method, net, gifts, entries)
    SELECT tenant_id, date, fund_id, method, sum(net), sum(gifts), sum(entries) FROM live
    GROUP BY 1, 2, 3, 4 HAVING sum(net) <> 0 OR sum(gifts) <> 0 OR sum(entries) <> 0 ORDER BY 1, 3, 2, 4
    ON CONFLICT (tenant_id, fund_id, date, method) DO UPDATE
      SET net = g.net + excluded.net, gifts = g.gifts + excluded.gifts, entries = g.entries + excluded.entries
  )
  INSERT INTO giving_apply_rows
  SELECT x.*, row_number() OVER (PARTITION BY tenant_id, kind, year, fund_id, contact_id ORDER BY idx)::int FROM (
    SELECT tenant_id, k.kind, k.year, fund_id, contact_id, k.idx, sum(gifts)::int AS n
    FROM live
    CROSS JOIN LATERAL (VALUES
      ('month', extract(year FROM date)::int, extract(month FROM date)::int),
      ('week', extract(year FROM date - extract(dow FROM date)::int)::int, (extract(doy FROM date - extract(dow FROM date)::int)::int - 1) / 7 + 1)
    ) AS k(kind, year, idx)
    WHERE contact_id IS NOT NULL AND gifts <> 0
    GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(gifts) <> 0
  ) AS x;
  SELECT max(pass) INTO passes FROM giving_apply_rows;
  FOR i IN 1 .. coalesce(passes, 0) LOOP
    PERFORM 1 FROM giving_donor_periods p JOIN giving_apply_rows a
      ON a.pass = i AND p.tenant_id = a.tenant_id AND p.kind = a.kind AND p.fund_id = a.fund_id AND p.year = a.year AND p.contact_id = a.contact_id
    ORDER BY p.tenant_id, p.kind, p.fund_id, p.year, p.contact_id FOR UPDATE OF p;
    UPDATE giving_donor_periods p SET n[a.idx] = p.n[a.idx] + a.n FROM giving_apply_rows a
    WHERE a.pass = i AND p.tenant_id = a.tenant_id AND p.kind = a.kind AND p.fund_id = a.fund_id AND p.year = a.year AND p.contact_id = a.contact_id;
    INSERT INTO giving_donor_periods AS p (tenant_id, kind, year, fund_id, contact_id, n)
    SELECT a.tenant_id, a.kind, a.year, a.fund_id, a.contact_id,
      array_fill(0, ARRAY[a.idx - 1]) || a.n || array_fill(0, ARRAY[CASE a.kind WHEN 'month' THEN 12 ELSE 53 END - a.idx])
    FROM giving_apply_rows a
    WHERE a.pass = i AND NOT EXISTS (SELECT 1 FROM giving_donor_periods q WHERE q.tenant_id = a.tenant_id AND q.kind = a.kind
      AND q.fund_id = a.fund_id AND q.year = a.year AND q.contact_id = a.contact_id)
    ORDER BY 1, 2, 4, 3, 5
    -- A row another transaction inserted since: added to whole arrays.
    ON CONFLICT (tenant_id, kind, fund_id, year, contact_id) DO UPDATE SET n = giving_array_add(p.n, excluded.n);
  END LOOP;
  DELETE FROM giving_apply_rows;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS giving_lines_insert ON contribution_lines;
--> statement-breakpoint
CREATE TRIGGER giving_lines_insert AFTER INSERT ON contribution_lines
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION giving_lines_track();
--> statement-breakpoint
DROP TRIGGER IF EXISTS giving_lines_update ON contribution_lines;
--> statement-breakpoint
CREATE TRIGGER giving_lines_update AFTER UPDATE ON contribution_lines
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION giving_lines_track();
--> statement-breakpoint
DROP TRIGGER IF EXISTS giving_lines_delete ON contribution_lines;
--> statement-breakpoint
CREATE TRIGGER giving_lines_delete AFTER DELETE ON contribution_lines
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION giving_lines_track();
--> statement-breakpoint
DROP TRIGGER IF EXISTS giving_contributions_update ON contributions;
--> statement-breakpoint
CREATE TRIGGER giving_contributions_update AFTER UPDATE ON contributions
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION giving_contributions_track();
--> statement-breakpoint
DROP TRIGGER IF EXISTS giving_contribution_delete ON contributions;
--> statement-breakpoint
CREATE TRIGGER giving_contribution_delete BEFORE DELETE ON contributions
FOR EACH ROW EXECUTE FUNCTION giving_contribution_delete();
--> statement-breakpoint
DROP TRIGGER IF EXISTS giving_pending_apply ON giving_pending;
--> statement-breakpoint
-- One row per statement is marked `apply`: a 10,000-gift import appends thousands of rows (one per
-- donor, date and fund), and an unconditional row trigger would run the apply once for each at commit.
CREATE CONSTRAINT TRIGGER giving_pending_apply AFTER INSERT ON giving_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION giving_apply();
--> statement-breakpoint
-- Existing data, counted once (CREATE TRIGGER locked both tables against writes until this commits).
-- Overwrites on a second run.
INSERT INTO giving_days AS g (tenant_id, date, fund_id, method, net, gifts, entries)
SELECT c.tenant_id, c.date, coalesce(f.fund_id, 0), c.method, sum(f.net), sum((c.status <> 'Refunded')::int), count(*)
FROM (
  SELECT l.tenant_id, l.contribution_id, l.fund_id, sum(l.amount - l.refunded_amount) AS net FROM contribution_lines l
  GROUP BY l.tenant_id, l.contribution_id, ROLLUP (l.fund_id)
) AS f
JOIN contributions c ON c.tenant_id = f.tenant_id AND c.id = f.contribution_id
GROUP BY 1, 2, 3, 4
ON CONFLICT (tenant_id, fund_id, date, method) DO UPDATE SET net = excluded.net, gifts = excluded.gifts, entries = excluded.entries;
--> statement-breakpoint
INSERT INTO giving_donor_periods AS p (tenant_id, kind, year, fund_id, contact_id, n)
SELECT tenant_id, kind, year, fund_id, contact_id, giving_period_array(CASE kind WHEN 'month' THEN 12 ELSE 53 END, array_agg(idx), array_agg(n))
FROM (
  SELECT c.tenant_id, k.kind, k.year, coalesce(f.fund_id, 0) AS fund_id, c.contact_id, k.idx, count(*) AS n
  FROM (
    SELECT DISTINCT l.tenant_id, l.contribution_id, l.fund_id FROM contribution_lines l
    UNION ALL
    SELECT DISTINCT l.tenant_id, l.contribution_id, NULL::bigint FROM contribution_lines l
  ) AS f
  JOIN contributions c ON c.tenant_id = f.tenant_id AND c.id = f.contribution_id
  CROSS JOIN LATERAL (VALUES
    ('month', extract(year FROM c.date)::int, extract(month FROM c.date)::int),
    ('week', extract(year FROM c.date - extract(dow FROM c.date)::int)::int, (extract(doy FROM c.date - extract(dow FROM c.date)::int)::int - 1) / 7 + 1)
  ) AS k(kind, year, idx)
  WHERE c.contact_id IS NOT NULL AND c.status <> 'Refunded'
  GROUP BY 1, 2, 3, 4, 5, 6
) AS x
GROUP BY 1, 2, 3, 4, 5
ON CONFLICT (tenant_id, kind, fund_id, year, contact_id) DO UPDATE SET n = excluded.n;
