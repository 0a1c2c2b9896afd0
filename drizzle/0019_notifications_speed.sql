-- Change feed (issue 11): the changes waiting for a retry, per tenant. The dispatcher holds back the
-- later changes of a record behind its failed one (src/changes/subscribers.ts); with this partial
-- index it finds the waiting ones without reading a busy tenant's whole queue. Only failed changes
-- have attempts > 0, so new changes are not indexed here. Safe to run twice.
CREATE INDEX IF NOT EXISTS "change_queue_retry_idx" ON "change_queue" USING btree ("tenant_id", "change_id") WHERE attempts > 0;
