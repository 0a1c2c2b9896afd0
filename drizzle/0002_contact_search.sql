-- Contacts `q` search (api-contract §5) through the trigram GIN indexes.
-- Under row level security PostgreSQL may not use a non-leakproof operator such as ILIKE as an
-- index condition, so a search as app_user would scan every row of the tenant. This function runs
-- as its owner (not subject to RLS) and applies the same tenant rule as the policy itself, taken
-- from the transaction's app.tenant_id: with no tenant bound it returns nothing.
CREATE OR REPLACE FUNCTION contact_search_ids(text_pattern text, digits_pattern text)
RETURNS SETOF bigint
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
ROWS 200
AS $$
  SELECT c.id FROM contacts AS c
  WHERE c.tenant_id = nullif(current_setting('app.tenant_id', true), '')::bigint
    AND (c.search_text ILIKE text_pattern OR (digits_pattern IS NOT NULL AND c.phone_digits LIKE digits_pattern))
$$;
