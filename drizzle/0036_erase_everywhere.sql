-- Erase means erased (issue 29).
--
--   * An erased person's attendance stays as counts but no longer points at them (modules-contract
--     §7): attendance_records.contact_id may be null. Session counts do not move (the count trigger
--     of 0008 counts rows by kind and first-time flag, which an erase leaves alone), and the unique
--     (session, contact) index lets any number of unlinked records share a session.
--   * erase_jsonb_text replaces a pattern in the string values of a jsonb document (never in its keys,
--     numbers or literals, so the document stays what it was, minus the erased text): the audit's and
--     the job queue's payloads, saved-list criteria, report values.
--   * idempotency_keys remembers what a stored 201 created (route, id of the body) so deleting the
--     thing withdraws the stored response, and why a response was withdrawn (replayed as 410).

ALTER TABLE "attendance_records" ALTER COLUMN "contact_id" DROP NOT NULL;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION erase_jsonb_text(doc jsonb, pattern text, replacement text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE jsonb_typeof(doc)
    WHEN 'string' THEN
      RETURN to_jsonb(regexp_replace(doc #>> '{}', pattern, replacement, 'gi'));
    WHEN 'object' THEN
      RETURN (SELECT coalesce(jsonb_object_agg(e.key, erase_jsonb_text(e.value, pattern, replacement)), '{}'::jsonb) FROM jsonb_each(doc) AS e);
    WHEN 'array' THEN
      RETURN (SELECT coalesce(jsonb_agg(erase_jsonb_text(a.value, pattern, replacement) ORDER BY a.n), '[]'::jsonb)
        FROM jsonb_array_elements(doc) WITH ORDINALITY AS a(value, n));
    ELSE
      RETURN doc;
  END CASE;
END
$$;
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN IF NOT EXISTS "route" text;
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN IF NOT EXISTS "resource_id" bigint;
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN IF NOT EXISTS "withdrawn" text;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "idempotency_keys_resource_idx" ON "idempotency_keys" ("tenant_id", "route", "resource_id") WHERE "resource_id" IS NOT NULL;
