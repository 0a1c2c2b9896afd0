-- Giving settings of a church (issue 34): its postal address and registration or tax number printed on
-- statements, a closing sentence for statements, the paper size statements are laid out on, and an
-- email that replies to the church's messages go to (else the sending user's own email).
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "address" text;
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "tax_number" text;
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "statement_closing" text;
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "paper_size" text DEFAULT 'A4' NOT NULL;
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN IF NOT EXISTS "reply_to" text;
