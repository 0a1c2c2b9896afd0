import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/modules/notifications/webhooks.security.js';
import { api, expectError, setupTestApp } from '../helpers/app.js';
import { newTenant, type TestTenant } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/notifications.factories.js';

// An app built as in production: https only, and no private, loopback or link-local targets.
const ctx = setupTestApp({ nodeEnv: 'production' });
const W = '/api/notifications/webhooks';

describe('webhooks in production: no server-side request forgery', () => {
  let t: TestTenant;
  let a: ReturnType<typeof api>;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await newTenant(ctx);
    a = api(ctx.app, t.admin.token);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it('refuses http, and https to private, loopback, link-local or unresolvable hosts (checked after DNS resolution)', async () => {
    const refused: [string, RegExp][] = [
      [receiver.url, /must be an https URL/], // http, even to loopback
      ['https://127.0.0.1/hook', /private, loopback or link-local/],
      ['https://127.1.2.3:8443/hook', /private/],
      ['https://localhost/hook', /private/], // a name resolving to loopback
      ['https://10.1.2.3/hook', /private/],
      ['https://172.16.5.4/hook', /private/],
      ['https://192.168.1.10/hook', /private/],
      ['https://169.254.169.254/latest/meta-data', /private/],
      ['https://100.64.0.1/hook', /private/],
      ['https://0.0.0.0/hook', /private/],
      ['https://[::1]/hook', /private/],
      ['https://[fe80::1]/hook', /private/],
      ['https://[fd00::1]/hook', /private/],
      ['https://[::ffff:127.0.0.1]/hook', /private/],
      ['https://no-such-host.invalid/hook', /could not be resolved/],
    ];
    for (const [url, message] of refused) expect(expectError(await a.post(W, { url, events: ['*'] }), 400), url).toMatch(message);
    // A public address is accepted (a literal: no DNS needed in the sandbox).
    const ok = await a.post(W, { url: 'https://93.184.216.34/hook', events: ['*'] });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(expectError(await a.put(`${W}/${ok.json().id}`, { url: 'https://192.168.0.1/x' }), 400)).toMatch(/private/);
    await a.delete(`${W}/${ok.json().id}`);
  });

  it('checks again at delivery time: a saved URL that now points at a loopback receiver is refused, and the receiver gets nothing', async () => {
    const hook = (await a.post(W, { url: 'https://93.184.216.34/hook', events: ['*'] })).json();
    const port = new URL(receiver.url).port;
    // As if the DNS record had been re-pointed after the check (rebinding): an address, then a name.
    for (const url of [`https://127.0.0.1:${port}/hooks`, `https://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`]) {
      await ctx.db.execute(sql`update webhooks set url = ${url} where tenant_id = ${t.id} and id = ${hook.id}`);
      const test = (await a.post(`${W}/${hook.id}/test`)).json();
      await ctx.app.worker.drain();
      // (The hook subscribes to '*': it also has a delivery of its own webhook.created, refused alike.)
      const d = (await a.get(`${W}/${hook.id}/deliveries`)).json().data.find((x: { id: number }) => x.id === test.id);
      expect(d.id).toBe(test.id);
      expect(d).toMatchObject({ status: 'Pending', attempts: 1, lastStatusCode: null });
      expect(d.lastError, url).toMatch(url.startsWith('http:') ? /https/ : /Refused|private/);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('classifies addresses', () => {
    for (const bad of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.1.1', '100.100.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isForbiddenAddress(bad), bad).toBe(true);
    }
    for (const good of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isForbiddenAddress(good), good).toBe(false);
  });
});
