-- Finance import: donors matched through indexes (issue 14: 10,000 rows in < 3 s). Written to run twice.
--
-- The giving import matched names by building every full name of the tenant (lower(first || ' ' ||
-- last) over all persons and companies) for each batch, and emails by lower(value), which under row
-- level security is no index condition (lower() is not leakproof: 0020). This function answers a
-- batch in one statement with index probes only, one per distinct key:
--   contactId: contacts' primary key;
--   email:     contact_emails_value_idx (tenant_id, lower(value));
--   phone:     contact_phones_digits_idx (tenant_id, digits);
--   name:      contacts_order_idx (tenant_id, sort_last, sort_first): a name "a b c" is looked up as
--              (first "a", last "b c") and (first "a b", last "c") for persons (sort_first/sort_last
--              are the lowered first/last names) and as (last "a b c", first '') for companies; each
--              candidate is confirmed with the exact rule (lower(first_name || ' ' || last_name), or
--              lower(company name), equal to the name).
-- Each key matches when it names exactly one contact. As 0020's function it runs as its owner and
-- applies the policy's own tenant rule (no tenant bound: no match). Input: a JSON array of
-- {row, contact_id, email, digits, name} (name's spacing collapsed; email and name are lowered here, by
-- the same lower() as the stored side).
CREATE OR REPLACE FUNCTION finance_import_donor_matches(input jsonb)
RETURNS TABLE (row_no integer, by_id bigint, matched bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
  WITH t AS (
    SELECT nullif(current_setting('app.tenant_id', true), '')::bigint AS tenant_id
  ), i AS (
    SELECT x.row, x.contact_id, lower(x.email) AS email, x.digits, lower(x.name) AS name
    FROM jsonb_to_recordset(input) AS x(row integer, contact_id bigint, email text, digits text, name text)
  ), ids AS (
    SELECT DISTINCT i.contact_id AS key FROM i WHERE i.contact_id IS NOT NULL
  ), by_id AS (
    SELECT ids.key, k.id FROM ids CROSS JOIN t
    CROSS JOIN LATERAL (SELECT k.id FROM contacts AS k WHERE k.tenant_id = t.tenant_id AND k.id = ids.key) AS k
  ), emails AS (
    SELECT DISTINCT i.email AS key FROM i WHERE i.email IS NOT NULL AND i.contact_id IS NULL
  ), by_email AS (
    SELECT emails.key, m.id FROM emails CROSS JOIN t
    CROSS JOIN LATERAL (
      SELECT min(e.contact_id) AS id FROM contact_emails AS e
      WHERE e.tenant_id = t.tenant_id AND lower(e.value) = emails.key
      HAVING count(DISTINCT e.contact_id) = 1
    ) AS m
  ), phones AS (
    SELECT DISTINCT i.digits AS key FROM i WHERE i.digits IS NOT NULL AND i.contact_id IS NULL
  ), by_phone AS (
    SELECT phones.key, m.id FROM phones CROSS JOIN t
    CROSS JOIN LATERAL (
      SELECT min(p.contact_id) AS id FROM contact_phones AS p
      WHERE p.tenant_id = t.tenant_id AND p.digits = phones.key
      HAVING count(DISTINCT p.contact_id) = 1
    ) AS m
  ), names AS (
    SELECT DISTINCT i.name AS key FROM i WHERE i.name IS NOT NULL AND i.contact_id IS NULL
  ), splits AS (
    -- (sort_first, sort_last, category) candidates of each name.
    SELECT names.key, substr(names.key, 1, s.pos - 1) AS first, substr(names.key, s.pos + 1) AS last, 'Person' AS category
    FROM names CROSS JOIN LATERAL generate_series(1, length(names.key)) AS s(pos)
    WHERE substr(names.key, s.pos, 1) = ' '
    UNION ALL
    SELECT names.key, '', names.key, 'Company' FROM names
  ), name_hits AS (
    SELECT splits.key, k.id FROM splits CROSS JOIN t
    CROSS JOIN LATERAL (
      SELECT k.id FROM contacts AS k
      WHERE k.tenant_id = t.tenant_id AND k.sort_last = splits.last AND k.sort_first = splits.first AND k.category = splits.category
    ) AS k
    WHERE CASE splits.category
      WHEN 'Person' THEN EXISTS (SELECT 1 FROM persons AS p WHERE p.tenant_id = t.tenant_id AND p.contact_id = k.id
        AND lower(p.first_name || ' ' || p.last_name) = splits.key)
      ELSE EXISTS (SELECT 1 FROM companies AS co WHERE co.tenant_id = t.tenant_id AND co.contact_id = k.id AND lower(co.name) = splits.key) END
  ), by_name AS (
    SELECT name_hits.key, min(name_hits.id) AS id FROM name_hits GROUP BY name_hits.key HAVING count(DISTINCT name_hits.id) = 1
  )
  SELECT i.row, bi.id, CASE WHEN i.contact_id IS NULL THEN coalesce(be.id, bp.id, bn.id) END
  FROM i
  LEFT JOIN by_id AS bi ON bi.key = i.contact_id
  LEFT JOIN by_email AS be ON be.key = i.email
  LEFT JOIN by_phone AS bp ON bp.key = i.digits
  LEFT JOIN by_name AS bn ON bn.key = i.name
$$;
--> statement-breakpoint
-- Donor counts from a handful of rows (issue 14: summary by month over a year < 100 ms). 0016's
-- giving_donor_periods holds one row per donor and year: counting the donors of a window read every
-- donor's row (30,000 rows for a year of the large tenant, growing with the donors). giving_donor_masks
-- keeps, per tenant × kind × fund × year, how many donors gave in exactly each SET of periods of the
-- year (mask: bit i-1 for period i, weeks 1..53 fit a bigint): donors in a period are the sum over
-- the masks holding its bit, distinct donors of a window inside one year the sum over the masks
-- meeting the window's bits. A year has at most 4,096 month masks; weekly givers who miss different
-- weeks have different week masks (at worst one per donor, as before). Windows spanning years, and
-- the few donors with gifts in the days of a cut period that lie outside the window, still read
-- giving_donor_periods (src/modules/finance/giving.rollups.ts). Kept in giving_apply at commit, from
-- each touched donor row's periods before and after this transaction's deltas.
CREATE TABLE IF NOT EXISTS "giving_donor_masks" (
	"tenant_id" bigint NOT NULL,
	"kind" text NOT NULL,
	"year" integer NOT NULL,
	"fund_id" bigint NOT NULL,
	"mask" bigint NOT NULL,
	"donors" integer NOT NULL,
	CONSTRAINT "giving_donor_masks_pk" PRIMARY KEY("tenant_id","kind","fund_id","year","mask"),
	CONSTRAINT "giving_donor_masks_tenant_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade
);
--> statement-breakpoint
-- The set of periods with gifts: bit i-1 set when n[i] > 0.
CREATE OR REPLACE FUNCTION giving_mask(n integer[]) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(bit_or(1::bigint << (u.i - 1)::integer), 0) FROM unnest(n) WITH ORDINALITY AS u(x, i) WHERE u.x > 0
$$;
--> statement-breakpoint
-- 0016's giving_apply, plus the masks: after the passes, each touched donor row's mask now (from its
-- periods as they are, locked by this transaction) and before (the touched periods less this
-- transaction's deltas) move one donor from the old mask's count to the new one's, in key order.
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
  IF passes IS NOT NULL THEN
    INSERT INTO giving_donor_masks AS g (tenant_id, kind, year, fund_id, mask, donors)
    SELECT m.tenant_id, m.kind, m.year, m.fund_id, m.mask, sum(m.d)::int FROM (
      SELECT r.tenant_id, r.kind, r.year, r.fund_id, v.mask, v.d FROM (
        SELECT a.tenant_id, a.kind, a.year, a.fund_id, a.contact_id, giving_mask(p.n) AS now_mask,
          bit_or(1::bigint << (a.idx - 1)) AS touched,
          bit_or(CASE WHEN p.n[a.idx] - a.n > 0 THEN 1::bigint << (a.idx - 1) ELSE 0 END) AS before_bits
        FROM giving_apply_rows a JOIN giving_donor_periods p
          ON p.tenant_id = a.tenant_id AND p.kind = a.kind AND p.fund_id = a.fund_id AND p.year = a.year AND p.contact_id = a.contact_id
        GROUP BY a.tenant_id, a.kind, a.year, a.fund_id, a.contact_id, p.n
      ) AS r
      CROSS JOIN LATERAL (VALUES (r.now_mask, 1), ((r.now_mask & ~r.touched) | r.before_bits, -1)) AS v(mask, d)
      WHERE r.now_mask <> (r.now_mask & ~r.touched) | r.before_bits AND v.mask <> 0
    ) AS m
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(m.d) <> 0 ORDER BY 1, 2, 4, 3, 5
    ON CONFLICT (tenant_id, kind, fund_id, year, mask) DO UPDATE SET donors = g.donors + excluded.donors;
  END IF;
  DELETE FROM giving_apply_rows;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Existing donor rows, counted once (overwrites on a second run).
INSERT INTO giving_donor_masks AS g (tenant_id, kind, year, fund_id, mask, donors)
SELECT p.tenant_id, p.kind, p.year, p.fund_id, giving_mask(p.n), count(*)::int FROM giving_donor_periods p
WHERE giving_mask(p.n) <> 0
GROUP BY 1, 2, 3, 4, 5
ON CONFLICT (tenant_id, kind, fund_id, year, mask) DO UPDATE SET donors = excluded.donors;
--> statement-breakpoint
-- 0016's line trigger, same footprints, with a plan that cannot go quadratic: its contributions join
-- was planned from statistics, and on tables not analyzed since they were small (a new church's first
-- import) PostgreSQL nested-looped the changed lines over every contribution (10,000 imported gifts:
-- 200 million row comparisons, 75 s); the count of a group's lines now, written once per reference,
-- ran up to eight times per group. Now each group reads its contribution (by primary key: LIMIT 1
-- keeps the subquery from being flattened back into a join) and its line count by key, once
-- (MATERIALIZED).
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
    ), x AS MATERIALIZED (
      SELECT c.tenant_id, c.date, c.method, c.contact_id, g.fund_id, g.net,
        ((n.now_n > 0)::int - (n.now_n - g.k > 0)::int) AS entries, (c.status <> 'Refunded')::int AS live
      FROM g
      CROSS JOIN LATERAL (SELECT c.tenant_id, c.date, c.method, c.contact_id, c.status FROM contributions c
        WHERE c.tenant_id = g.tenant_id AND c.id = g.contribution_id LIMIT 1) AS c
      CROSS JOIN LATERAL (SELECT count(*) AS now_n FROM contribution_lines l WHERE l.tenant_id = g.tenant_id AND l.contribution_id = g.contribution_id
        AND (g.fund_id IS NULL OR l.fund_id = g.fund_id)) AS n
    )
    INSERT INTO giving_pending (xid, tenant_id, date, method, contact_id, fund_id, net, gifts, entries, apply)
    SELECT pg_current_xact_id(), x.tenant_id, x.date, x.method, x.contact_id, coalesce(x.fund_id, 0), sum(x.net),
      sum(x.entries * x.live), sum(x.entries), row_number() OVER () = 1
    FROM x
    GROUP BY 2, 3, 4, 5, 6
    HAVING sum(x.net) <> 0 OR sum(x.entries) <> 0 OR sum(x.entries * x.live) <> 0
  $q$, changed);
  RETURN NULL;
END
$$;
