-- Finance import speed (issue 14: importing 10,000 giving rows < 3 s on the large tenant) and
-- set-based deletes of many gifts. Every statement can run twice (OR REPLACE, IF EXISTS).
--
-- Measured on the large bench tenant (1.6M contributions, 245k donor rows; bench/giving-import.ts),
-- a 10,000-row import spent most of its time in the giving rollups of 0016/0023:
--   * at commit, giving_apply locked the touched donor rows (one probe each), updated them (a second
--     probe), looked for the missing ones (a third), then joined them all again for the donor masks,
--     where giving_mask (a SQL function over unnest, not inlinable) ran per row and group;
--   * the line trigger probed each contribution twice (its fund and "all funds" groups);
--   * the donor match looked up the names of rows a phone or email had already matched.
-- Now the rollups do the same sums with fewer probes:
--   * giving_mask and giving_array_add are single expressions, inlined by the planner;
--   * each pass of giving_apply is ONE upsert of the donor rows in key order (locks in key order as
--     before: INSERT ... ORDER BY ... ON CONFLICT takes them in its input's order), whose RETURNING
--     rows (the periods after this pass, locked) move each donor from its mask before the pass to
--     its mask after it (the passes telescope to before → after the transaction);
--   * the line trigger reads each changed contribution once, with its lines' count per fund;
--   * giving_apply runs once per transaction (0025's marker, queue 'giving'), without JIT (its
--     statements' estimates crossed jit_above_cost: compiling cost more than running);
--   * names are looked up only for rows no email or phone matched.
--
-- Deletes of many gifts (a batch, a script): 0016's per-row BEFORE DELETE trigger deleted each
-- contribution's lines in a statement of its own, so every deleted gift ran the line trigger and
-- queued an apply of its own (10,000 gifts: ~35 s quiet, 67 s measured on a loaded machine). Now a
-- statement-level AFTER DELETE trigger stages the deleted contributions (transition table) and the
-- line trigger, which PostgreSQL fires ONCE for all the lines the foreign key cascaded away, takes
-- their footprints out (see "contribution deletes" below).

-- ---- inlinable helpers (same results as 0016/0023's)

-- The set of periods with gifts: bit i-1 set when n[i] > 0 (n has at most 53 periods).
CREATE OR REPLACE FUNCTION giving_mask(n integer[]) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT (
    0::bigint |
    CASE WHEN n[1] > 0 THEN 1 ELSE 0 END | CASE WHEN n[2] > 0 THEN 2 ELSE 0 END | CASE WHEN n[3] > 0 THEN 4 ELSE 0 END | CASE WHEN n[4] > 0 THEN 8 ELSE 0 END |
    CASE WHEN n[5] > 0 THEN 16 ELSE 0 END | CASE WHEN n[6] > 0 THEN 32 ELSE 0 END | CASE WHEN n[7] > 0 THEN 64 ELSE 0 END | CASE WHEN n[8] > 0 THEN 128 ELSE 0 END |
    CASE WHEN n[9] > 0 THEN 256 ELSE 0 END | CASE WHEN n[10] > 0 THEN 512 ELSE 0 END | CASE WHEN n[11] > 0 THEN 1024 ELSE 0 END | CASE WHEN n[12] > 0 THEN 2048 ELSE 0 END |
    CASE WHEN n[13] > 0 THEN 4096 ELSE 0 END | CASE WHEN n[14] > 0 THEN 8192 ELSE 0 END | CASE WHEN n[15] > 0 THEN 16384 ELSE 0 END | CASE WHEN n[16] > 0 THEN 32768 ELSE 0 END |
    CASE WHEN n[17] > 0 THEN 65536 ELSE 0 END | CASE WHEN n[18] > 0 THEN 131072 ELSE 0 END | CASE WHEN n[19] > 0 THEN 262144 ELSE 0 END | CASE WHEN n[20] > 0 THEN 524288 ELSE 0 END |
    CASE WHEN n[21] > 0 THEN 1048576 ELSE 0 END | CASE WHEN n[22] > 0 THEN 2097152 ELSE 0 END | CASE WHEN n[23] > 0 THEN 4194304 ELSE 0 END | CASE WHEN n[24] > 0 THEN 8388608 ELSE 0 END |
    CASE WHEN n[25] > 0 THEN 16777216 ELSE 0 END | CASE WHEN n[26] > 0 THEN 33554432 ELSE 0 END | CASE WHEN n[27] > 0 THEN 67108864 ELSE 0 END | CASE WHEN n[28] > 0 THEN 134217728 ELSE 0 END |
    CASE WHEN n[29] > 0 THEN 268435456 ELSE 0 END | CASE WHEN n[30] > 0 THEN 536870912 ELSE 0 END | CASE WHEN n[31] > 0 THEN 1073741824 ELSE 0 END | CASE WHEN n[32] > 0 THEN 2147483648 ELSE 0 END |
    CASE WHEN n[33] > 0 THEN 4294967296 ELSE 0 END | CASE WHEN n[34] > 0 THEN 8589934592 ELSE 0 END | CASE WHEN n[35] > 0 THEN 17179869184 ELSE 0 END | CASE WHEN n[36] > 0 THEN 34359738368 ELSE 0 END |
    CASE WHEN n[37] > 0 THEN 68719476736 ELSE 0 END | CASE WHEN n[38] > 0 THEN 137438953472 ELSE 0 END | CASE WHEN n[39] > 0 THEN 274877906944 ELSE 0 END | CASE WHEN n[40] > 0 THEN 549755813888 ELSE 0 END |
    CASE WHEN n[41] > 0 THEN 1099511627776 ELSE 0 END | CASE WHEN n[42] > 0 THEN 2199023255552 ELSE 0 END | CASE WHEN n[43] > 0 THEN 4398046511104 ELSE 0 END | CASE WHEN n[44] > 0 THEN 8796093022208 ELSE 0 END |
    CASE WHEN n[45] > 0 THEN 17592186044416 ELSE 0 END | CASE WHEN n[46] > 0 THEN 35184372088832 ELSE 0 END | CASE WHEN n[47] > 0 THEN 70368744177664 ELSE 0 END | CASE WHEN n[48] > 0 THEN 140737488355328 ELSE 0 END |
    CASE WHEN n[49] > 0 THEN 281474976710656 ELSE 0 END | CASE WHEN n[50] > 0 THEN 562949953421312 ELSE 0 END | CASE WHEN n[51] > 0 THEN 1125899906842624 ELSE 0 END | CASE WHEN n[52] > 0 THEN 2251799813685248 ELSE 0 END |
    CASE WHEN n[53] > 0 THEN 4503599627370496 ELSE 0 END
  )
$$;
--> statement-breakpoint
-- Element-wise sum, as long as the longer of the two (at most 53 periods).
CREATE OR REPLACE FUNCTION giving_array_add(a integer[], b integer[]) RETURNS integer[]
LANGUAGE sql IMMUTABLE
AS $$
  SELECT (ARRAY[
    coalesce(a[1], 0) + coalesce(b[1], 0), coalesce(a[2], 0) + coalesce(b[2], 0), coalesce(a[3], 0) + coalesce(b[3], 0), coalesce(a[4], 0) + coalesce(b[4], 0),
    coalesce(a[5], 0) + coalesce(b[5], 0), coalesce(a[6], 0) + coalesce(b[6], 0), coalesce(a[7], 0) + coalesce(b[7], 0), coalesce(a[8], 0) + coalesce(b[8], 0),
    coalesce(a[9], 0) + coalesce(b[9], 0), coalesce(a[10], 0) + coalesce(b[10], 0), coalesce(a[11], 0) + coalesce(b[11], 0), coalesce(a[12], 0) + coalesce(b[12], 0),
    coalesce(a[13], 0) + coalesce(b[13], 0), coalesce(a[14], 0) + coalesce(b[14], 0), coalesce(a[15], 0) + coalesce(b[15], 0), coalesce(a[16], 0) + coalesce(b[16], 0),
    coalesce(a[17], 0) + coalesce(b[17], 0), coalesce(a[18], 0) + coalesce(b[18], 0), coalesce(a[19], 0) + coalesce(b[19], 0), coalesce(a[20], 0) + coalesce(b[20], 0),
    coalesce(a[21], 0) + coalesce(b[21], 0), coalesce(a[22], 0) + coalesce(b[22], 0), coalesce(a[23], 0) + coalesce(b[23], 0), coalesce(a[24], 0) + coalesce(b[24], 0),
    coalesce(a[25], 0) + coalesce(b[25], 0), coalesce(a[26], 0) + coalesce(b[26], 0), coalesce(a[27], 0) + coalesce(b[27], 0), coalesce(a[28], 0) + coalesce(b[28], 0),
    coalesce(a[29], 0) + coalesce(b[29], 0), coalesce(a[30], 0) + coalesce(b[30], 0), coalesce(a[31], 0) + coalesce(b[31], 0), coalesce(a[32], 0) + coalesce(b[32], 0),
    coalesce(a[33], 0) + coalesce(b[33], 0), coalesce(a[34], 0) + coalesce(b[34], 0), coalesce(a[35], 0) + coalesce(b[35], 0), coalesce(a[36], 0) + coalesce(b[36], 0),
    coalesce(a[37], 0) + coalesce(b[37], 0), coalesce(a[38], 0) + coalesce(b[38], 0), coalesce(a[39], 0) + coalesce(b[39], 0), coalesce(a[40], 0) + coalesce(b[40], 0),
    coalesce(a[41], 0) + coalesce(b[41], 0), coalesce(a[42], 0) + coalesce(b[42], 0), coalesce(a[43], 0) + coalesce(b[43], 0), coalesce(a[44], 0) + coalesce(b[44], 0),
    coalesce(a[45], 0) + coalesce(b[45], 0), coalesce(a[46], 0) + coalesce(b[46], 0), coalesce(a[47], 0) + coalesce(b[47], 0), coalesce(a[48], 0) + coalesce(b[48], 0),
    coalesce(a[49], 0) + coalesce(b[49], 0), coalesce(a[50], 0) + coalesce(b[50], 0), coalesce(a[51], 0) + coalesce(b[51], 0), coalesce(a[52], 0) + coalesce(b[52], 0),
    coalesce(a[53], 0) + coalesce(b[53], 0)
  ])[1:greatest(array_length(a, 1), array_length(b, 1))]
$$;
--> statement-breakpoint
-- ---- donor matching

-- 0023's matches, per row: its contactId; else, for a row without one, the first of email, phone
-- digits, full name that names exactly one contact. Each is a correlated subquery of COALESCE,
-- run only when the ones before it matched nobody (a mobile-money row whose phone found the donor
-- never looks up its account name), each an index probe as in 0023 (a name "a b c" as first "a",
-- last "b c" and first "a b", last "c" for persons, and as a company's name). No join between sets
-- of keys: their sizes are unknown to the planner (0023's CTE joins could nested-loop 10,000 rows
-- by thousands of phones).
CREATE OR REPLACE FUNCTION finance_import_donor_matches(input jsonb)
RETURNS TABLE (row_no integer, by_id bigint, matched bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
  SELECT i.row,
    CASE WHEN i.contact_id IS NOT NULL THEN (SELECT k.id FROM contacts AS k WHERE k.tenant_id = t.tenant_id AND k.id = i.contact_id) END,
    CASE WHEN i.contact_id IS NULL THEN coalesce(
      (SELECT min(e.contact_id) FROM contact_emails AS e
        WHERE i.email IS NOT NULL AND e.tenant_id = t.tenant_id AND lower(e.value) = i.email
        HAVING count(DISTINCT e.contact_id) = 1),
      (SELECT min(p.contact_id) FROM contact_phones AS p
        WHERE i.digits IS NOT NULL AND p.tenant_id = t.tenant_id AND p.digits = i.digits
        HAVING count(DISTINCT p.contact_id) = 1),
      (SELECT min(k.id) FROM (
          SELECT substr(i.name, 1, s.pos - 1) AS first, substr(i.name, s.pos + 1) AS last, 'Person' AS category
          FROM generate_series(1, length(i.name)) AS s(pos) WHERE substr(i.name, s.pos, 1) = ' '
          UNION ALL
          SELECT '', i.name, 'Company'
        ) AS sp
        JOIN contacts AS k ON k.tenant_id = t.tenant_id AND k.sort_last = sp.last AND k.sort_first = sp.first AND k.category = sp.category
        WHERE i.name IS NOT NULL AND CASE sp.category
          WHEN 'Person' THEN EXISTS (SELECT 1 FROM persons AS p WHERE p.tenant_id = t.tenant_id AND p.contact_id = k.id
            AND lower(p.first_name || ' ' || p.last_name) = i.name)
          ELSE EXISTS (SELECT 1 FROM companies AS co WHERE co.tenant_id = t.tenant_id AND co.contact_id = k.id AND lower(co.name) = i.name) END
        HAVING count(DISTINCT k.id) = 1)
    ) END
  FROM (SELECT nullif(current_setting('app.tenant_id', true), '')::bigint AS tenant_id) AS t,
    (SELECT x.row, x.contact_id, lower(x.email) AS email, x.digits, lower(x.name) AS name
     FROM jsonb_to_recordset(input) AS x(row integer, contact_id bigint, email text, digits text, name text)) AS i
$$;
--> statement-breakpoint
-- ---- line and contribution triggers

-- 0023's footprints of changed lines (new +1, old -1): per contribution and fund, and per
-- contribution for all funds (fund_id 0), the net, and a gift/entry when the group had no line
-- before and has one now (or goes with its last line). Each changed contribution is read once by
-- key, with its lines' count per fund now (one index scan; ROLLUP gives the total, 0 when no line is
-- left). Planned per firing (EXECUTE: a plan kept from a small first firing of the session could
-- nested-loop a large one), hash joins between its sets. giving_pending's first row of a
-- transaction (since its last apply) fires the apply (0025's marker, queue 'giving').
-- Deleted lines whose contribution was deleted too (its foreign key's cascade) take the
-- contribution's side from giving_deleted_contributions (below), whose rows they consume.
CREATE OR REPLACE FUNCTION giving_lines_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
SET jit = off
SET enable_nestloop = off
AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT tenant_id, contribution_id, fund_id, amount - refunded_amount AS net, 1 AS k FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT tenant_id, contribution_id, fund_id, refunded_amount - amount AS net, -1 AS k FROM old_rows'
    ELSE 'SELECT tenant_id, contribution_id, fund_id, amount - refunded_amount AS net, 1 AS k FROM new_rows
          UNION ALL SELECT tenant_id, contribution_id, fund_id, refunded_amount - amount, -1 FROM old_rows' END;
BEGIN
  EXECUTE format($q$
    INSERT INTO giving_pending (xid, tenant_id, date, method, contact_id, fund_id, net, gifts, entries, apply)
    WITH d AS (%s), g AS (
      SELECT tenant_id, contribution_id, fund_id, sum(net) AS net, sum(k) AS k FROM d
      GROUP BY tenant_id, contribution_id, ROLLUP (fund_id)
    ), cs AS (
      SELECT DISTINCT tenant_id, contribution_id FROM d
    ), c AS MATERIALIZED (
      SELECT cs.tenant_id, cs.contribution_id, c.date, c.method, c.contact_id, (c.status <> 'Refunded')::int AS live
      FROM cs CROSS JOIN LATERAL (
        (SELECT c.date, c.method, c.contact_id, c.status FROM contributions c WHERE c.tenant_id = cs.tenant_id AND c.id = cs.contribution_id)
        UNION ALL
        (SELECT s.date, s.method, s.contact_id, s.status FROM giving_deleted_contributions s
          WHERE %s AND s.tenant_id = cs.tenant_id AND s.id = cs.contribution_id AND s.xid = pg_current_xact_id())
        LIMIT 1) AS c
    ), n AS MATERIALIZED (
      SELECT cs.tenant_id, cs.contribution_id, coalesce(l.fund_id, 0) AS fund_id, l.now_n
      FROM cs CROSS JOIN LATERAL (SELECT l.fund_id, count(*) AS now_n FROM contribution_lines l
        WHERE l.tenant_id = cs.tenant_id AND l.contribution_id = cs.contribution_id GROUP BY ROLLUP (l.fund_id)) AS l
    ), x AS (
      SELECT c.tenant_id, c.date, c.method, c.contact_id, coalesce(g.fund_id, 0) AS fund_id, g.net, c.live,
        (coalesce(n.now_n, 0) > 0)::int - (coalesce(n.now_n, 0) - g.k > 0)::int AS entries
      FROM g JOIN c ON c.tenant_id = g.tenant_id AND c.contribution_id = g.contribution_id
      LEFT JOIN n ON n.tenant_id = g.tenant_id AND n.contribution_id = g.contribution_id AND n.fund_id = coalesce(g.fund_id, 0)
    )
    SELECT pg_current_xact_id(), x.tenant_id, x.date, x.method, x.contact_id, x.fund_id, sum(x.net),
      sum(x.entries * x.live), sum(x.entries), CASE WHEN row_number() OVER () = 1 THEN pending_apply_first('giving') ELSE false END
    FROM x
    GROUP BY 2, 3, 4, 5, 6
    HAVING sum(x.net) <> 0 OR sum(x.entries) <> 0 OR sum(x.entries * x.live) <> 0
  $q$, changed, (TG_OP = 'DELETE')::text);
  IF TG_OP = 'DELETE' THEN
    DELETE FROM giving_deleted_contributions WHERE xid = pg_current_xact_id();
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- 0016's contribution updates that move a footprint, with the apply marker; hash joins only (its
-- static plan is kept for the session: a nested loop of old and new rows planned for one row
-- would be quadratic for an update of thousands, such as a merge of donors).
CREATE OR REPLACE FUNCTION giving_contributions_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
SET jit = off
SET enable_nestloop = off
AS $$
BEGIN
  INSERT INTO giving_pending (xid, tenant_id, date, method, contact_id, fund_id, net, gifts, entries, apply)
  SELECT pg_current_xact_id(), c.tenant_id, c.date, c.method, c.contact_id, coalesce(f.fund_id, 0), sum(f.net * c.s),
    sum((c.status <> 'Refunded')::int * c.s), sum(c.s), CASE WHEN row_number() OVER () = 1 THEN pending_apply_first('giving') ELSE false END
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
-- ---- contribution deletes, per statement

-- A deleted contribution's lines go with it by its foreign key (ON DELETE CASCADE). PostgreSQL runs
-- the cascade per deleted row, but queues the AFTER STATEMENT triggers of the cascaded deletes into
-- the deleting statement (one firing of the line trigger, with every cascaded line in its transition
-- table), after the contributions' own AFTER STATEMENT triggers. So the deleted contributions'
-- rows (their date, method, contact and status: the line trigger's contribution side) are staged
-- here per statement, from the transition table, and the line trigger reads them there for the
-- lines whose contribution is gone, then deletes them. Staged rows are this transaction's (xid).
CREATE TABLE IF NOT EXISTS "giving_deleted_contributions" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"id" bigint NOT NULL,
	"date" date NOT NULL,
	"method" text NOT NULL,
	"contact_id" bigint,
	"status" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "giving_deleted_contributions_idx" ON "giving_deleted_contributions" USING btree ("xid", "tenant_id", "id");
--> statement-breakpoint
-- AFTER DELETE ON contributions FOR EACH STATEMENT: the deleted contributions, unless their tenant
-- is being deleted (the rollups go with it).
CREATE OR REPLACE FUNCTION giving_contributions_deleted() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  INSERT INTO giving_deleted_contributions (xid, tenant_id, id, date, method, contact_id, status)
  SELECT pg_current_xact_id(), o.tenant_id, o.id, o.date, o.method, o.contact_id, o.status FROM old_rows o
  WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = o.tenant_id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- 0016's per-row BEFORE DELETE trigger goes (it deleted each contribution's lines in a statement of
-- its own: 10,000 deleted gifts ran the line trigger and queued an apply 10,000 times, ~35 s).
DROP TRIGGER IF EXISTS giving_contribution_delete ON contributions;
--> statement-breakpoint
DROP FUNCTION IF EXISTS giving_contribution_delete();
--> statement-breakpoint
DROP TRIGGER IF EXISTS giving_contributions_delete ON contributions;
--> statement-breakpoint
CREATE TRIGGER giving_contributions_delete AFTER DELETE ON contributions
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION giving_contributions_deleted();
--> statement-breakpoint
-- ---- the apply at commit

-- 0023's giving_apply, same sums: giving_days upserted; the donor deltas per (donor row, period),
-- ranked per donor row into passes (a pass touches each donor row once); per pass ONE upsert of the
-- donor rows in key order (INSERT ... ON CONFLICT locks them in its input's order, as giving_days'),
-- adding the pass's one-period array to the row; its RETURNING rows (the periods after the pass,
-- locked by this transaction) whose period crossed zero move their donor from the mask before the
-- pass (the mask now with that period's bit flipped) to the mask now (giving_mask only for those:
-- most gifts land in a week and month the donor already gave in). The passes telescope to the
-- transaction's before → after. Hash joins only (enable_nestloop off: the delta table's size is
-- known only at run time), no JIT, sorts in memory. Clears 0025's marker of queue 'giving'.
CREATE OR REPLACE FUNCTION giving_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
SET jit = off
SET enable_nestloop = off
SET work_mem = '32MB'
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
  passes integer;
BEGIN
  IF to_regclass('pg_temp.giving_apply_delta') IS NULL THEN
    CREATE TEMP TABLE giving_apply_delta (
      tenant_id bigint, kind text, year integer, fund_id bigint, contact_id bigint, idx integer, n integer, pass integer
    );
  END IF;
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
  INSERT INTO giving_apply_delta
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
  SELECT max(pass) INTO passes FROM giving_apply_delta;
  FOR i IN 1 .. coalesce(passes, 0) LOOP
    WITH up AS (
      INSERT INTO giving_donor_periods AS p (tenant_id, kind, year, fund_id, contact_id, n)
      SELECT a.tenant_id, a.kind, a.year, a.fund_id, a.contact_id,
        array_fill(0, ARRAY[a.idx - 1]) || a.n || array_fill(0, ARRAY[CASE a.kind WHEN 'month' THEN 12 ELSE 53 END - a.idx])
      FROM giving_apply_delta a WHERE a.pass = i
      ORDER BY a.tenant_id, a.kind, a.fund_id, a.year, a.contact_id
      ON CONFLICT (tenant_id, kind, fund_id, year, contact_id) DO UPDATE SET n = giving_array_add(p.n, excluded.n)
      RETURNING p.tenant_id, p.kind, p.year, p.fund_id, p.contact_id, p.n
    ), r AS MATERIALIZED (
      -- The donors whose period crossed zero this pass: the mask now, and the period's bit.
      SELECT up.tenant_id, up.kind, up.year, up.fund_id, giving_mask(up.n) AS now_mask, 1::bigint << (a.idx - 1) AS bit
      FROM up JOIN giving_apply_delta a ON a.pass = i AND a.tenant_id = up.tenant_id AND a.kind = up.kind AND a.fund_id = up.fund_id
        AND a.year = up.year AND a.contact_id = up.contact_id
      WHERE (up.n[a.idx] > 0) <> (up.n[a.idx] - a.n > 0)
    )
    INSERT INTO giving_donor_masks AS g (tenant_id, kind, year, fund_id, mask, donors)
    SELECT r.tenant_id, r.kind, r.year, r.fund_id, v.mask, sum(v.d)::int
    FROM r CROSS JOIN LATERAL (VALUES (r.now_mask, 1), (r.now_mask # r.bit, -1)) AS v(mask, d)
    WHERE v.mask <> 0
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(v.d) <> 0 ORDER BY 1, 2, 4, 3, 5
    ON CONFLICT (tenant_id, kind, fund_id, year, mask) DO UPDATE SET donors = g.donors + excluded.donors;
  END LOOP;
  TRUNCATE giving_apply_delta;
  PERFORM set_config('parish.pending_giving', '', true);
  RETURN NULL;
END
$$;
