import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ModuleOptions, ParishModule } from '../module.js';
import { inboxRoutes } from './inbox.routes.js';
import { MESSAGE_SEND_JOB, messageSendJob } from './messages.jobs.js';
import { messagesRoutes } from './messages.routes.js';
import { notificationsDocs } from './notifications.docs.js';
import { NOTIFICATION_EMAIL_JOB, notificationEmailJob, notifySubscriber } from './notify.subscriber.js';
import { WEBHOOK_DELIVER_JOB, webhookDeliverJob, webhookFanOut } from './webhooks.delivery.js';
import { webhooksRoutes } from './webhooks.routes.js';

const routes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { db, config, mailer, auth }) => {
  // Only the services: the options this plugin got also carry its prefix, which must not apply twice.
  const options = { db, config, mailer, auth };
  await app.register(messagesRoutes, options);
  await app.register(webhooksRoutes, options);
  await app.register(inboxRoutes, options);
};

/** Notifications, messages, templates and webhooks (modules-contract §6). */
export const notificationsModule: ParishModule = {
  name: 'notifications',
  prefix: '/api/notifications',
  routes,
  docs: notificationsDocs,
  subscribers: [notifySubscriber, webhookFanOut],
  jobs: {
    [NOTIFICATION_EMAIL_JOB]: notificationEmailJob,
    [MESSAGE_SEND_JOB]: messageSendJob,
    [WEBHOOK_DELIVER_JOB]: webhookDeliverJob,
  },
};
