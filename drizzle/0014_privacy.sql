-- Privacy (modules-contract §7): indexes for GET /api/crm/duplicates. Each duplicate key is grouped
-- over one of these indexes of the tenant (tenant, key, contact), read in key order, and pairs are
-- made only inside groups of equal keys, never over every pair of contacts. The expressions must
-- stay identical to src/modules/privacy/duplicates.repository.ts. Indexes on tables owned by the
-- contacts schema, so they are declared here and not in a Drizzle table of their own.
CREATE INDEX IF NOT EXISTS "contact_emails_dup_idx" ON "contact_emails" USING btree ("tenant_id", lower("value"), "contact_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "contact_phones_dup_idx" ON "contact_phones" USING btree ("tenant_id", "digits", "contact_id") WHERE length("digits") >= 6;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "persons_name_dup_idx" ON "persons" USING btree ("tenant_id", (lower(replace(replace(btrim("first_name") || ' ' || btrim("last_name"), '  ', ' '), '  ', ' '))), "contact_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "companies_name_dup_idx" ON "companies" USING btree ("tenant_id", (lower(replace(replace(btrim("name"), '  ', ' '), '  ', ' '))), "contact_id");
--> statement-breakpoint
-- Erase finds the changes naming the person as the other side of a relationship (the contact's own
-- changes and those carrying data.contactId are served by changes_entity_idx and changes_contact_idx).
CREATE INDEX IF NOT EXISTS "changes_related_contact_idx" ON "changes" USING btree ("tenant_id", ("data" -> 'relatedContactId')) WHERE "data" ? 'relatedContactId';
