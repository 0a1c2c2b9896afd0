-- Without SMTP a message is written to the server's log, not sent (issue 34): its deliveries and the
-- message itself say "Logged", so nobody mistakes a log line for an email that went out.
ALTER TABLE "messages" DROP CONSTRAINT IF EXISTS "messages_status_ck";
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_status_ck" CHECK ("status" in ('Queued', 'Sending', 'Sent', 'Logged', 'Failed'));
--> statement-breakpoint
ALTER TABLE "message_deliveries" DROP CONSTRAINT IF EXISTS "message_deliveries_status_ck";
--> statement-breakpoint
ALTER TABLE "message_deliveries" ADD CONSTRAINT "message_deliveries_status_ck" CHECK ("status" in ('Queued', 'Sent', 'Logged', 'Failed'));
