-- Search speed (issues 16 and 20). Written to run twice (applied by hand to loaded bench databases).
--
-- 1. The search box's accent-folded text of a contact, stored: search_fold() (0011) ran on every
--    candidate row of every search (translate() for any non-ASCII row). A generated column needs no
--    write-path change and is computed on both databases by the same IMMUTABLE function. It holds
--    the folded text only where folding changes something (NULL otherwise: most rows are ASCII, and
--    a copy of search_text in every row would make every read of contacts a quarter slower); the
--    search box compares coalesce(search_folded, search_text), which is what the index holds.
ALTER TABLE "contacts" ADD COLUMN IF NOT EXISTS "search_folded" text GENERATED ALWAYS AS (nullif(search_fold("search_text"), "search_text")) STORED;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contacts_search_folded_trgm_idx" ON "contacts" USING gin ((coalesce("search_folded", "search_text")) gin_trgm_ops);
--> statement-breakpoint
DROP INDEX IF EXISTS "contacts_search_fold_trgm_idx";
--> statement-breakpoint
-- 2. One page of contacts matching a search, for the contacts list `q` (folded = false: search_text,
--    case-insensitive, accents as stored) and the search box (folded = true: the folded text).
--    search_text is lower case already, so the pattern is lowered once (lower() of this database:
--    the stored text was lowered by it) and compared with LIKE, never ILIKE per row.
--    They run as their owner for the reason of 0002 (LIKE is not an index condition under RLS) and
--    apply the policy's own tenant rule (no tenant bound: nothing).
CREATE OR REPLACE FUNCTION contact_search_where(folded boolean, by_category boolean, by_status boolean, by_digits boolean)
RETURNS text LANGUAGE sql IMMUTABLE
AS $$
  -- Parameters of the statements below: $1 tenant, $2 text pattern, $3 digits pattern, $4 category, $5 status.
  SELECT 'c.tenant_id = $1'
    || CASE WHEN by_category THEN ' AND c.category = $4' ELSE '' END
    || CASE WHEN by_status THEN ' AND c.status = $5' ELSE '' END
    || ' AND (' || CASE WHEN folded THEN 'coalesce(c.search_folded, c.search_text)' ELSE 'c.search_text' END || ' LIKE $2'
    || CASE WHEN by_digits THEN ' OR c.phone_digits LIKE $3' ELSE '' END || ')'
$$;
--> statement-breakpoint
-- The exact number of matches: a count over the trigram bitmap (no rows carried, sorted or joined).
CREATE OR REPLACE FUNCTION contact_search_count(text_pattern text, digits_pattern text, folded boolean, want_category text, want_status text)
RETURNS integer LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
SET enable_seqscan = off
AS $$
DECLARE
  tenant bigint := nullif(current_setting('app.tenant_id', true), '')::bigint;
  n integer;
BEGIN
  IF tenant IS NULL THEN RETURN 0; END IF;
  EXECUTE 'SELECT count(*)::int FROM contacts AS c WHERE '
      || contact_search_where(folded, want_category IS NOT NULL, want_status IS NOT NULL, digits_pattern IS NOT NULL)
    INTO n
    USING tenant, CASE WHEN folded THEN search_fold(text_pattern) ELSE lower(text_pattern) END, digits_pattern, want_category, want_status;
  RETURN n;
END
$$;
--> statement-breakpoint
-- The page in list order (sort_last, sort_first, id) with the total. Two ways to find it:
-- - a frequent term: walk the list-order index (contacts_order_idx, or contacts_category_order_idx
--   with a category), test each row, stop at offset + limit matches: about
--   (offset + limit) × size / total rows read;
-- - otherwise: every match from the trigram indexes, then a top-N sort: about total rows read.
-- The walk is taken when it reads fewer rows; size is the tenant's (or category's) contact count
-- from contact_counts (0004). Each way is pinned with the planner switches, restored at exit.
CREATE OR REPLACE FUNCTION contact_search_page(text_pattern text, digits_pattern text, folded boolean, want_category text, want_status text, page_limit integer, page_offset integer)
RETURNS TABLE (id bigint, sort_last text, sort_first text, total integer) LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = public, pg_temp
SET enable_seqscan = off
SET enable_bitmapscan = on
SET enable_indexscan = on
ROWS 20
AS $$
DECLARE
  tenant bigint := nullif(current_setting('app.tenant_id', true), '')::bigint;
  n integer;
  size bigint;
BEGIN
  IF tenant IS NULL THEN RETURN; END IF;
  n := contact_search_count(text_pattern, digits_pattern, folded, want_category, want_status);
  IF n <= page_offset THEN RETURN; END IF;
  SELECT coalesce(sum(cc.n), 0) INTO size FROM contact_counts AS cc
  WHERE cc.tenant_id = tenant AND (want_category IS NULL OR cc.category = want_category);
  IF (page_offset + page_limit)::numeric * size < n::numeric * n THEN
    PERFORM set_config('enable_bitmapscan', 'off', true);
  ELSE
    PERFORM set_config('enable_indexscan', 'off', true);
  END IF;
  RETURN QUERY EXECUTE 'SELECT c.id, c.sort_last, c.sort_first, $6 FROM contacts AS c WHERE '
      || contact_search_where(folded, want_category IS NOT NULL, want_status IS NOT NULL, digits_pattern IS NOT NULL)
      || ' ORDER BY c.sort_last, c.sort_first, c.id LIMIT $7 OFFSET $8'
    USING tenant, CASE WHEN folded THEN search_fold(text_pattern) ELSE lower(text_pattern) END, digits_pattern, want_category, want_status,
      n, page_limit, page_offset;
END
$$;
--> statement-breakpoint
-- The search box's id functions of 0011 were estimated at 100 rows: the planner then read every
-- group (event, user) of the tenant into a hash instead of looking the few matches up by key
-- (groups: 6.9 ms -> 0.8 ms for 98 matches of 5,000 groups), and the cost grew with the table.
ALTER FUNCTION search_group_ids(text) ROWS 10;
--> statement-breakpoint
ALTER FUNCTION search_event_ids(text) ROWS 10;
--> statement-breakpoint
ALTER FUNCTION search_user_ids(text) ROWS 10;
--> statement-breakpoint
-- Replaced by contact_search_page (list `q` and search box).
DROP FUNCTION IF EXISTS contact_search_ids(text, text);
--> statement-breakpoint
DROP FUNCTION IF EXISTS search_contacts(text, text);
