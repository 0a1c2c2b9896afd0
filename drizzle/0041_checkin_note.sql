-- Console part 2 (issue 33): a Person's check-in note (allergies, medical or custody notes) printed on
-- the child's check-in label; written with contacts:write, never in the kiosk's family lookup.
ALTER TABLE "persons" ADD COLUMN IF NOT EXISTS "checkin_note" text;--> statement-breakpoint
ALTER TABLE "persons" DROP CONSTRAINT IF EXISTS "persons_checkin_note_len";--> statement-breakpoint
ALTER TABLE "persons" ADD CONSTRAINT "persons_checkin_note_len" CHECK (char_length("checkin_note") <= 200);
