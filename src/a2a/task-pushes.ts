import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { StreamResponse } from '@a2a-js/sdk';
import { V1PushNotificationSerializer } from '@a2a-js/sdk/server';
import { webhookSettingsOf } from '../config/async.schema';
import { ServerConfig } from '../config/server-config';
import { OutboundPolicy } from '../core/outbound/outbound-policy';
import { WebhookDelivery } from '../core/outbound/webhook-delivery';
import { A2aTaskStore, type StoredPushConfig } from './a2a-task-store';

/** The header A2A names for a config's `token` (the receiver checks it is the one it gave). */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/**
 * POSTs a task's updates to its push-notification configs, one update after the other per task (a
 * receiver sees them in order), as the SDK's v1.0 serializer writes them (`StreamResponse` JSON).
 *
 * As a job's own webhook, through the same signed, retried delivery (core/outbound/webhook-delivery.ts):
 * the URL must name a host in `general.async.webhook_allow_hosts`, and the call goes out under
 * `general.outbound`; the config's credentials go in `Authorization` (`<scheme> <credentials>`, as A2A
 * says), its token in `X-A2A-Notification-Token`. The configs are read again for each update, so one
 * deleted on any replica gets nothing more.
 */
@Injectable()
export class TaskPushes implements OnApplicationShutdown {
  private readonly logger = new Logger('A2aPush');
  private readonly delivery: WebhookDelivery;
  private readonly serializer = new V1PushNotificationSerializer();
  /** Per task, the last delivery queued (the next waits for it). */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    config: ServerConfig,
    private readonly store: A2aTaskStore,
  ) {
    const policy = new OutboundPolicy(config.general.outbound);
    this.delivery = new WebhookDelivery(policy, webhookSettingsOf(config.general.async), 'Push notification');
  }

  /** Why a config's URL is refused, or null when updates may go there. */
  problem(url: string): string | null {
    return this.delivery.problem(url, 'url');
  }

  /** Holds the task's next deliveries until `ready` settles (its first config is being saved). */
  after(taskId: string, ready: Promise<unknown>): void {
    this.enqueue(taskId, () => ready.then(() => undefined));
  }

  /** Sends `update` to every config the task has when its turn comes. */
  notify(taskId: string, update: StreamResponse): void {
    this.enqueue(taskId, () => this.send(taskId, update));
  }

  async onApplicationShutdown(): Promise<void> {
    // Updates queued still go out, each in one attempt.
    await this.delivery.close([...this.queues.values()]);
  }

  private enqueue(taskId: string, step: () => Promise<void>): void {
    const previous = this.queues.get(taskId) ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(step)
      .catch((err: Error) => this.logger.warn(`Push notifications for task ${taskId}: ${err.message}`))
      .finally(() => {
        if (this.queues.get(taskId) === next) this.queues.delete(taskId);
      });
    this.queues.set(taskId, next);
  }

  private async send(taskId: string, update: StreamResponse): Promise<void> {
    const configs = await this.store.pushConfigs(taskId);
    if (configs.length === 0) return;
    const { body, contentType } = this.serializer.serialize(update);
    // One message per update: its retries (and its copies to each config) share the id.
    const id = `msg_${randomUUID()}`;
    await Promise.all(
      configs.map((config) => {
        // Checked when set; checked again in case the allowed hosts changed since.
        const problem = this.problem(config.url);
        if (problem) {
          this.logger.warn(`Push notification for task ${taskId} not sent: ${problem}`);
          return;
        }
        const headers = credentialHeaders(config);
        return this.delivery.send(config.url, {
          id,
          body,
          contentType,
          headers,
          about: `for task ${taskId}`,
        });
      }),
    );
  }
}

function credentialHeaders(config: StoredPushConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  const auth = config.authentication;
  if (auth?.scheme && auth.credentials) headers.authorization = `${auth.scheme} ${auth.credentials}`;
  if (config.token) headers[NOTIFICATION_TOKEN_HEADER.toLowerCase()] = config.token;
  return headers;
}
