-- Webhooks deliver only what their owner may read (issue 29, src/changes/readable.ts): each webhook
-- has an owner, the user who created it or last changed it. A delivery is checked against the
-- owner's permissions at fan-out and again when it is sent; a disabled or deleted owner receives
-- nothing. No foreign key (as messages.created_by): the subscription and its log outlive the
-- account, and an owner that no longer exists simply receives nothing.
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "owner_user_id" bigint;
--> statement-breakpoint
-- Existing webhooks: the last user who created or changed them (changes_entity_idx); those with
-- none recorded stay without an owner (nothing is delivered until a user saves them).
UPDATE "webhooks" w SET "owner_user_id" = (
  SELECT c.actor_user_id FROM "changes" c
  WHERE c.tenant_id = w.tenant_id AND c.entity_type = 'webhook' AND c.entity_id = w.id
    AND c.type IN ('webhook.created', 'webhook.updated') AND c.actor_user_id IS NOT NULL
  ORDER BY c.id DESC LIMIT 1)
WHERE w.owner_user_id IS NULL;
