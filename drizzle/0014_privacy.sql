-- Privacy (modules-contract §7): indexes for GET /api/crm/duplicates. Each duplicate key is a
-- self-join on equal values; these indexes carry (tenant, key, contact) so each join reads one
-- index of the tenant in key order (index-only), never every pair of contacts. The expressions must
-- stay identical to src/modules/privacy/duplicates.repository.ts. Indexes on tables owned by the
-- contacts schema, so they are declared here and not in a Drizzle table of their own.
CREATE INDEX IF NOT EXISTS "contact_emails_dup_idx" ON "contact_emails" USING btree ("tenant_id", lower("value"), "contact_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contact_phones_dup_idx" ON "contact_phones" USING btree ("tenant_id", "digits", "contact_id") WHERE length("digits") >= 6;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "persons_name_dup_idx" ON "persons" USING btree ("tenant_id", (lower(btrim(regexp_replace("first_name" || ' ' || "last_name", '\s+', ' ', 'g')))), "contact_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "companies_name_dup_idx" ON "companies" USING btree ("tenant_id", (lower(btrim(regexp_replace("name", '\s+', ' ', 'g')))), "contact_id");
--> statement-breakpoint
-- The timeline, erase and export find a contact's changes by data->>'contactId' as well as by entity.
CREATE INDEX IF NOT EXISTS "changes_data_contact_idx" ON "changes" USING btree ("tenant_id", (("data" ->> 'contactId')));
