CREATE INDEX "contacts_count_idx" ON "contacts" USING btree ("tenant_id","category","status");--> statement-breakpoint
-- contact_search_ids (0002) again, pinned to the trigram indexes: the planner's estimate for a
-- '%fragment%' pattern is often far too high, and a heap scan of a large tenant costs 5-10× the
-- bitmap scan. Patterns under 3 characters still work (a full GIN scan).
CREATE OR REPLACE FUNCTION contact_search_ids(text_pattern text, digits_pattern text)
RETURNS SETOF bigint
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
SET enable_seqscan = off
ROWS 200
AS $$
  SELECT c.id FROM contacts AS c
  WHERE c.tenant_id = nullif(current_setting('app.tenant_id', true), '')::bigint
    AND (c.search_text ILIKE text_pattern OR c.phone_digits LIKE digits_pattern)
$$;
