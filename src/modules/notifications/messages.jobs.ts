import { sql, type SQL } from 'drizzle-orm';
import { recordChanges } from '../../changes/recorder.js';
import { withTenant, type Db } from '../../db/client.js';
import { enqueueJob, type JobHandler } from '../../jobs/queue.js';
import { renderMergeFields } from './merge-fields.js';

export const MESSAGE_SEND_JOB = 'messages.send';

/** Recipients per job: one batch at a time per message, sent one after another (a bounded rate). */
export const MESSAGE_BATCH = 50;
/** How long a job holds its batch: a job that dies leaves it to the next after this. */
const CLAIM_SECONDS = 300;

type Rows<T> = { rows: T[] };
async function rows<T>(tx: Db, query: SQL): Promise<T[]> {
  return ((await tx.execute(query)) as unknown as Rows<T>).rows;
}

interface Claimed {
  id: string | number;
  email: string;
  first_name: string;
  last_name: string;
}

interface Outcome {
  id: number;
  ok: boolean;
  error: string | null;
}

/**
 * Sends the next batch of a message's queued deliveries, then queues the next batch (or, when none
 * is left, settles the message: Sent, or Failed when every delivery failed, with its change).
 * Deliveries are claimed (claimed_until) in their own transaction before sending, so two runs of
 * the job never send the same batch; a crash between sending and recording re-sends that batch
 * (at least once).
 */
export const messageSendJob: JobHandler = {
  /** Seconds before retrying after the mail server was unavailable: 1, 2, 4 … minutes, at most an hour. */
  backoff: (attempts) => Math.min(3600, 60 * 2 ** (attempts - 1)),
  async run(job, ctx) {
    const messageId = Number(job.payload.messageId);
    // Where the previous run stopped (deliveries go in id order): each run's claim starts there, so
    // it never walks the index entries that the sent deliveries left behind under 'Queued' (dead until
    // vacuum), which made every batch slower than the one before.
    const afterId = Number(job.payload.afterId ?? 0);
    const batch = await withTenant(ctx.db, job.tenantId, async (tx) => {
      // Replies go to the church's reply-to address (tenant setting) when set, else to whoever sent the
      // message (their account's email), else to the From address.
      const [message] = await rows<{ subject: string; body: string; church: string; reply_to: string | null }>(tx, sql`
        update messages m set status = 'Sending' where m.tenant_id = ${job.tenantId} and m.id = ${messageId} and m.status in ('Queued', 'Sending')
        returning m.subject, m.body, (select name from tenants where id = ${job.tenantId}) as church,
          coalesce((select reply_to from tenants where id = ${job.tenantId}),
            (select u.email from users u where u.tenant_id = m.tenant_id and u.id = m.created_by and u.status = 'Active')) as reply_to`);
      if (!message) return undefined;
      const claimed = await rows<Claimed>(tx, sql`
        update message_deliveries d set claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS})
        from (select id from message_deliveries
              where tenant_id = ${job.tenantId} and message_id = ${messageId} and status = 'Queued' and id > ${afterId}
                and (claimed_until is null or claimed_until < now())
              order by id limit ${MESSAGE_BATCH} for update skip locked) next
        where d.tenant_id = ${job.tenantId} and d.id = next.id
        returning d.id, d.email,
          coalesce((select p.first_name from persons p where p.tenant_id = d.tenant_id and p.contact_id = d.contact_id),
                   (select co.name from companies co where co.tenant_id = d.tenant_id and co.contact_id = d.contact_id), '') as first_name,
          coalesce((select p.last_name from persons p where p.tenant_id = d.tenant_id and p.contact_id = d.contact_id), '') as last_name`);
      return { message, claimed };
    });
    if (!batch) return;

    const outcomes: Outcome[] = [];
    let transient: unknown;
    for (const r of batch.claimed.sort((a, b) => Number(a.id) - Number(b.id))) {
      const values = { firstName: r.first_name, lastName: r.last_name, churchName: batch.message.church };
      try {
        await ctx.mailer.send({
          to: r.email, subject: renderMergeFields(batch.message.subject, values), text: renderMergeFields(batch.message.body, values),
          ...(batch.message.reply_to ? { replyTo: batch.message.reply_to } : {}),
        });
        outcomes.push({ id: Number(r.id), ok: true, error: null });
      } catch (err) {
        if (!isPermanent(err)) {
          transient = err;
          break;
        }
        outcomes.push({ id: Number(r.id), ok: false, error: errorText(err) });
      }
    }
    // The mail server is unreachable or answered "try later": retry the job (backoff) with what is
    // left, until its last attempt, which fails what is still queued.
    const giveUp = transient !== undefined && job.attempts >= job.maxAttempts;

    await withTenant(ctx.db, job.tenantId, async (tx) => {
      if (outcomes.length) {
        await tx.execute(sql`
          update message_deliveries d set status = case when not o.ok then 'Failed' when ${ctx.mailer.delivers} then 'Sent' else 'Logged' end, error = o.error,
            sent_at = case when o.ok then now() end, claimed_until = null
          from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb) as o(id bigint, ok boolean, error text)
          where d.tenant_id = ${job.tenantId} and d.id = o.id`);
      }
      // Claimed but not tried: back to the queue.
      await tx.execute(sql`update message_deliveries set claimed_until = null
        where tenant_id = ${job.tenantId} and message_id = ${messageId} and status = 'Queued'
          and id = any(${`{${batch.claimed.map((r) => r.id).join(',')}}`}::bigint[])`);
      if (giveUp) {
        const failed = await rows(tx, sql`update message_deliveries set status = 'Failed', error = ${errorText(transient)}, claimed_until = null
          where tenant_id = ${job.tenantId} and message_id = ${messageId} and status = 'Queued' returning id`);
        await tx.execute(sql`update messages set failed = failed + ${failed.length} where tenant_id = ${job.tenantId} and id = ${messageId}`);
      }
      const sent = outcomes.filter((o) => o.ok).length;
      if (outcomes.length) {
        await tx.execute(sql`update messages set sent = sent + ${sent}, failed = failed + ${outcomes.length - sent}
          where tenant_id = ${job.tenantId} and id = ${messageId}`);
      }
      if (transient !== undefined && !giveUp) return;
      // Whether any delivery is left, not how many: a count here read the whole remaining queue once
      // per batch, quadratic in the recipients. Past this batch first (one index probe); the whole
      // queue only when that finds none, once at the end (deliveries put back by a retry lie before it).
      const next = batch.claimed.reduce((max, r) => Math.max(max, Number(r.id)), afterId);
      const free = (from: number) => sql`exists (select 1 from message_deliveries
        where tenant_id = ${job.tenantId} and message_id = ${messageId} and status = 'Queued' and id > ${from}
          and (claimed_until is null or claimed_until < now()))`;
      const [ahead] = await rows<{ free: boolean }>(tx, sql`select ${free(next)} as free`);
      const [left] = ahead.free ? [{ free: true, queued: true }] : await rows<{ queued: boolean; free: boolean }>(tx, sql`
        select ${free(0)} as free, exists (select 1 from message_deliveries
          where tenant_id = ${job.tenantId} and message_id = ${messageId} and status = 'Queued') as queued`);
      if (left.free) {
        await enqueueJob(tx, job.tenantId, { kind: MESSAGE_SEND_JOB, payload: { messageId, afterId: ahead.free ? next : 0 } });
      } else if (!left.queued) {
        await settle(tx, job.tenantId, messageId, ctx.mailer.delivers);
      }
    });
    if (transient !== undefined && !giveUp) throw new Error(`Mail server unavailable, will retry: ${errorText(transient)}`);
  },
};

/** A refusal that a retry will not change (a 5xx reply, a malformed address); anything else is retried. */
function isPermanent(err: unknown): boolean {
  const { responseCode, code } = (err ?? {}) as { responseCode?: number; code?: string };
  // A refused recipient is EENVELOPE whatever the reply: its code says whether to try again.
  if (typeof responseCode === 'number') return responseCode >= 500;
  return code === 'EENVELOPE' || code === 'EMESSAGE';
}

function errorText(err: unknown): string {
  return String((err as Error)?.message ?? err).slice(0, 1000);
}

/**
 * Sending is over: Sent (Logged when mail only goes to the log), or Failed when nothing could be
 * sent; a message.sent|failed change.
 */
async function settle(tx: Db, tenantId: number, messageId: number, delivers: boolean) {
  const [done] = await rows<{ status: 'Sent' | 'Logged' | 'Failed'; created_by: string | number | null; subject: string; recipient_count: number; sent: number; failed: number }>(tx, sql`
    update messages set status = case when failed > 0 and sent = 0 then 'Failed' when ${delivers} then 'Sent' else 'Logged' end, completed_at = now()
    where tenant_id = ${tenantId} and id = ${messageId} and status = 'Sending'
    returning status, created_by, subject, recipient_count, sent, failed`);
  if (!done) return; // another run settled it
  await recordChanges(tx, { tenantId, userId: null }, [{
    type: done.status === 'Failed' ? 'message.failed' : 'message.sent',
    entityId: messageId,
    data: {
      messageId,
      senderUserId: done.created_by === null ? null : Number(done.created_by),
      subject: done.subject,
      recipientCount: done.recipient_count,
      sent: done.sent,
      failed: done.failed,
    },
  }]);
}
