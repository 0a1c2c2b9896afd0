-- Common-name search (issue 20): the exact total of a three-character `q` from counters, not from a
-- heap visit per match. Written to run twice (applied by hand to loaded bench databases).
--
-- contact_search_count (0017) counted a term's matches through the trigram bitmap, rechecking LIKE
-- on every matching row: for a frequent fragment ("son", 5.7% of a 20,000-contact tenant) that was
-- most of the search's CPU. An index-only count is not available: GIN has no index-only scans and
-- PostgreSQL 15.20's bitmap heap scan fetches every page even for a count(*) with an exact condition
-- (checked). So the database keeps, per (tenant, three-character string, category, status), how many
-- contacts hold that string — a "gram" — in search_text, or as three digits in phone_digits:
-- - LIKE '%abc%' on search_text is true exactly when 'abc' is one of the row's grams (substrings of
--   three characters; search_text is already lower case and the pattern is lowered as in 0017);
-- - the phone search (`search_text LIKE '%123%' OR phone_digits LIKE '%123%'`) is true exactly when
--   '123' is a gram of either column: the row's gram set is the union, counted once per row.
--   A text-only search for three digits would then over-count, so it never reads the counters.
-- Longer terms are rarer and keep the trigram count; so do the search box (folded) and any pattern
-- that is not a three-character "contains" pattern.
--
-- Kept as contact_counts is (0004, 0005, 0025): statement triggers with transition tables append the
-- statement's deltas to contact_gram_pending (one row per tenant, category and status a statement
-- touches, the grams and their deltas as two arrays: plain inserts, no lock on a counter row while
-- the transaction runs), and a deferred constraint trigger applies them to contact_gram_counts at
-- commit, in key order. An update touches the counters only for rows whose search_text,
-- phone_digits, category or status changed.
-- A row's grams, each once, as bytes (the text's own encoding, textsend): substr on text walks the
-- string from its start for every gram (a 250-character row cost 0.5 ms), substr on bytes does
-- not, so a row all of one-byte characters is cut as bytes; any other row as characters.
-- An inlinable set-returning function (one SELECT, no SET): no call overhead per row.
DROP FUNCTION IF EXISTS contact_search_grams(text, text);
--> statement-breakpoint
CREATE FUNCTION contact_search_grams(search_text text, phone_digits text)
RETURNS SETOF bytea LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT u.g FROM unnest((SELECT array_agg(DISTINCT x.g) FROM (
    SELECT substr(b.b, i, 3) AS g FROM (SELECT textsend(search_text) AS b) AS b, generate_series(1, octet_length(b.b) - 2) AS i
    WHERE octet_length(search_text) = char_length(search_text)
    UNION ALL
    SELECT textsend(substr(search_text, i, 3)) FROM generate_series(1, char_length(search_text) - 2) AS i
    WHERE octet_length(search_text) <> char_length(search_text)
    UNION ALL
    SELECT textsend(d.g) FROM generate_series(1, char_length(phone_digits) - 2) AS i
    CROSS JOIN LATERAL (SELECT substr(phone_digits, i, 3) AS g) AS d
    WHERE translate(d.g, '0123456789', '') = ''
  ) AS x)) AS u(g)
$$;
--> statement-breakpoint
-- The first form of this migration kept the grams as text (commit fe7604e): a database migrated
-- with it has its tables rebuilt here (they are counted again below).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
             AND table_name = 'contact_gram_counts' AND column_name = 'gram' AND data_type <> 'bytea') THEN
    DROP TABLE contact_gram_counts;
    DROP TABLE IF EXISTS contact_gram_pending;
  END IF;
END
$$;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "contact_gram_counts" (
	"tenant_id" bigint NOT NULL,
	"gram" bytea NOT NULL,
	"category" text NOT NULL,
	"status" text NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "contact_gram_counts_pk" PRIMARY KEY ("tenant_id", "gram", "category", "status"),
	CONSTRAINT "contact_gram_counts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade
);
--> statement-breakpoint
-- Rows never outlive their transaction (as contact_count_pending): no key, no foreign key.
CREATE TABLE IF NOT EXISTS "contact_gram_pending" (
	"xid" "xid8" NOT NULL,
	"tenant_id" bigint NOT NULL,
	"category" text NOT NULL,
	"status" text NOT NULL,
	"grams" bytea[] NOT NULL,
	"n" integer[] NOT NULL,
	"apply" boolean DEFAULT pending_apply_first('contact_gram') NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contact_gram_pending_xid_idx" ON "contact_gram_pending" USING btree ("xid");
--> statement-breakpoint
-- SECURITY INVOKER: the writer's row level security applies to the pending rows, as in 0005.
CREATE OR REPLACE FUNCTION contact_grams_track() RETURNS trigger
LANGUAGE plpgsql SECURITY INVOKER
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO contact_gram_pending (xid, tenant_id, category, status, grams, n)
    SELECT pg_current_xact_id(), d.tenant_id, d.category, d.status, array_agg(d.g ORDER BY d.g), array_agg(d.n ORDER BY d.g)
    FROM (
      SELECT r.tenant_id, r.category, r.status, u.g, count(*)::int AS n
      FROM new_rows AS r CROSS JOIN LATERAL contact_search_grams(r.search_text, r.phone_digits) AS u(g)
      GROUP BY 1, 2, 3, 4
    ) AS d
    GROUP BY 2, 3, 4;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO contact_gram_pending (xid, tenant_id, category, status, grams, n)
    SELECT pg_current_xact_id(), d.tenant_id, d.category, d.status, array_agg(d.g ORDER BY d.g), array_agg(d.n ORDER BY d.g)
    FROM (
      SELECT r.tenant_id, r.category, r.status, u.g, sum(r.d)::int AS n
      FROM (
        SELECT x.tenant_id, x.category, x.status, x.search_text, x.phone_digits, x.d
        FROM new_rows AS nr JOIN old_rows AS o ON o.tenant_id = nr.tenant_id AND o.id = nr.id
        CROSS JOIN LATERAL (VALUES
          (nr.tenant_id, nr.category, nr.status, nr.search_text, nr.phone_digits, 1),
          (o.tenant_id, o.category, o.status, o.search_text, o.phone_digits, -1)) AS x(tenant_id, category, status, search_text, phone_digits, d)
        WHERE (nr.search_text, nr.phone_digits, nr.category, nr.status) IS DISTINCT FROM (o.search_text, o.phone_digits, o.category, o.status)
        UNION ALL -- a changed key (never done by the service): the row leaves one key and joins another
        SELECT nr.tenant_id, nr.category, nr.status, nr.search_text, nr.phone_digits, 1 FROM new_rows AS nr
        WHERE NOT EXISTS (SELECT 1 FROM old_rows AS o WHERE o.tenant_id = nr.tenant_id AND o.id = nr.id)
        UNION ALL
        SELECT o.tenant_id, o.category, o.status, o.search_text, o.phone_digits, -1 FROM old_rows AS o
        WHERE NOT EXISTS (SELECT 1 FROM new_rows AS nr WHERE nr.tenant_id = o.tenant_id AND nr.id = o.id)
      ) AS r CROSS JOIN LATERAL contact_search_grams(r.search_text, r.phone_digits) AS u(g)
      GROUP BY 1, 2, 3, 4 HAVING sum(r.d) <> 0
    ) AS d
    GROUP BY 2, 3, 4;
  ELSE
    INSERT INTO contact_gram_pending (xid, tenant_id, category, status, grams, n)
    SELECT pg_current_xact_id(), d.tenant_id, d.category, d.status, array_agg(d.g ORDER BY d.g), array_agg(d.n ORDER BY d.g)
    FROM (
      SELECT r.tenant_id, r.category, r.status, u.g, -count(*)::int AS n
      FROM old_rows AS r CROSS JOIN LATERAL contact_search_grams(r.search_text, r.phone_digits) AS u(g)
      GROUP BY 1, 2, 3, 4
    ) AS d
    GROUP BY 2, 3, 4;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- At commit, as contact_counts_apply (0005, 0025): moves ALL of this transaction's rows, locks the
-- counter rows in key order, skips tenants deleted meanwhile (their counters went with them).
-- SECURITY DEFINER: every delta this transaction appended is applied, whatever role and tenant
-- binding are in effect at commit.
CREATE OR REPLACE FUNCTION contact_grams_apply() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
  current_xid xid8 := pg_current_xact_id();
BEGIN
  WITH moved AS (
    DELETE FROM contact_gram_pending WHERE xid = current_xid
    RETURNING tenant_id, category, status, grams, n
  )
  INSERT INTO contact_gram_counts AS c (tenant_id, gram, category, status, n)
  SELECT m.tenant_id, u.g, m.category, m.status, sum(u.n)::bigint
  FROM moved AS m CROSS JOIN LATERAL unnest(m.grams, m.n) AS u(g, n)
  WHERE EXISTS (SELECT 1 FROM tenants AS t WHERE t.id = m.tenant_id)
  GROUP BY 1, 2, 3, 4 HAVING sum(u.n) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, gram, category, status) DO UPDATE SET n = c.n + excluded.n;
  PERFORM set_config('parish.pending_contact_gram', '', true);
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS contact_gram_pending_apply ON contact_gram_pending;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER contact_gram_pending_apply AFTER INSERT ON contact_gram_pending
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.apply) EXECUTE FUNCTION contact_grams_apply();
--> statement-breakpoint
-- Named after contact_counts_*: statement triggers fire in name order, so every transaction queues
-- (and at commit applies) contact_counts before contact_gram_counts.
DROP TRIGGER IF EXISTS contact_grams_insert ON contacts;
--> statement-breakpoint
CREATE TRIGGER contact_grams_insert AFTER INSERT ON contacts
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_grams_track();
--> statement-breakpoint
DROP TRIGGER IF EXISTS contact_grams_update ON contacts;
--> statement-breakpoint
CREATE TRIGGER contact_grams_update AFTER UPDATE ON contacts
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_grams_track();
--> statement-breakpoint
DROP TRIGGER IF EXISTS contact_grams_delete ON contacts;
--> statement-breakpoint
CREATE TRIGGER contact_grams_delete AFTER DELETE ON contacts
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_grams_track();
--> statement-breakpoint
-- Existing databases: count once (CREATE TRIGGER locked contacts against writes until this commits).
DELETE FROM contact_gram_counts;
--> statement-breakpoint
INSERT INTO contact_gram_counts (tenant_id, gram, category, status, n)
SELECT c.tenant_id, u.g, c.category, c.status, count(*)
FROM contacts AS c CROSS JOIN LATERAL contact_search_grams(c.search_text, c.phone_digits) AS u(g)
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
-- The count of 0017, reading the counters for a three-character "contains" pattern of the contacts
-- list (not folded; not a text-only search for three digits, see above). The pattern arrives LIKE
-- escaped (`%`, `_`, `\` preceded by `\`, src/lib/like.ts); it is used only if unescaping and
-- escaping again gives it back, i.e. it holds no wildcard of its own.
CREATE OR REPLACE FUNCTION contact_search_count(text_pattern text, digits_pattern text, folded boolean, want_category text, want_status text)
RETURNS integer LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
SET enable_seqscan = off
AS $$
DECLARE
  tenant bigint := nullif(current_setting('app.tenant_id', true), '')::bigint;
  n integer;
  p text := lower(text_pattern);
  inner_pattern text;
  term text;
BEGIN
  IF tenant IS NULL THEN RETURN 0; END IF;
  IF NOT folded AND char_length(p) BETWEEN 5 AND 8 AND left(p, 1) = '%' AND right(p, 1) = '%' THEN
    inner_pattern := substr(p, 2, char_length(p) - 2);
    term := regexp_replace(inner_pattern, '\\(.)', '\1', 'g');
    IF char_length(term) = 3
       AND replace(replace(replace(term, '\', '\\'), '%', '\%'), '_', '\_') = inner_pattern
       AND ((digits_pattern IS NULL AND translate(term, '0123456789', '') <> '')
         OR (translate(term, '0123456789', '') = '' AND digits_pattern = '%' || term || '%'))
    THEN
      SELECT coalesce(sum(k.n), 0)::int INTO n FROM contact_gram_counts AS k
      WHERE k.tenant_id = tenant AND k.gram = textsend(term)
        AND (want_category IS NULL OR k.category = want_category)
        AND (want_status IS NULL OR k.status = want_status);
      RETURN n;
    END IF;
  END IF;
  EXECUTE 'SELECT count(*)::int FROM contacts AS c WHERE '
      || contact_search_where(folded, want_category IS NOT NULL, want_status IS NOT NULL, digits_pattern IS NOT NULL)
    INTO n
    USING tenant, CASE WHEN folded THEN search_fold(text_pattern) ELSE p END, digits_pattern, want_category, want_status;
  RETURN n;
END
$$;
