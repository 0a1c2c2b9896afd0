-- Contacts import matching by email (issue 20's import work). Under row level security PostgreSQL
-- may not use a non-leakproof function such as lower() in an index condition, so the import's
-- `lower(value) = ANY (...)` as app_user read every email of the tenant for each batch (0.38 s per
-- 500-row batch at 130,000 emails; 2 ms through contact_emails_value_idx as the owner). As
-- contact_search_ids does, this function runs as its owner and applies the policy's own tenant
-- rule, taken from the transaction's app.tenant_id: with no tenant bound it returns nothing.
-- Lower-cased email -> the lowest Person contact id holding it. One index probe per key (a lateral
-- lookup), whatever the statistics say: during a large import they lag behind the table.
CREATE OR REPLACE FUNCTION contact_import_email_matches(email_keys text[])
RETURNS TABLE (key text, contact_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
  SELECT k.key, m.contact_id
  FROM unnest(email_keys) AS k(key)
  CROSS JOIN LATERAL (
    SELECT min(e.contact_id) AS contact_id
    FROM contact_emails AS e
    JOIN contacts AS c ON c.tenant_id = e.tenant_id AND c.id = e.contact_id AND c.category = 'Person'
    WHERE e.tenant_id = nullif(current_setting('app.tenant_id', true), '')::bigint
      AND lower(e.value) = k.key
  ) AS m
  WHERE m.contact_id IS NOT NULL
$$;
