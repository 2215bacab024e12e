import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { ServerConfig } from '../config/server-config';
import { OutboundPolicy } from '../core/outbound/outbound-policy';
import { outboundRequest } from '../core/outbound/outbound-request';
import { webhookHeaders } from '../core/outbound/webhook-signature';
import { FeedbackRecorded } from './feedback-recorded';
import type { FeedbackItem } from './feedback.service';

/**
 * Forwards each feedback recorded (with its sender's `user_id`) to `general.feedback.webhook_url`, with
 * Standard Webhooks headers, signed when `webhook_secret` is set. Fire and forget: the sender's request never
 * waits for it or fails because of it; a failure or a timeout is logged. Shutdown waits for calls under way.
 */
@Injectable()
export class FeedbackWebhook implements OnApplicationShutdown {
  private readonly logger = new Logger('Feedback');
  private readonly inFlight = new Set<Promise<void>>();
  private readonly url: string | undefined;
  private readonly headers: Record<string, string>;
  private readonly secret: string | undefined;
  private readonly timeoutMs: number;
  private readonly outbound: OutboundPolicy;

  constructor(config: ServerConfig) {
    this.outbound = new OutboundPolicy(config.general.outbound);
    const { webhook_url, webhook_headers, webhook_secret, webhook_timeout_seconds } = config.general.feedback;
    this.secret = webhook_secret || undefined;
    this.url = webhook_url || undefined;
    this.headers = Object.fromEntries(Object.entries(webhook_headers).map(([k, v]) => [k, String(v)]));
    this.timeoutMs = webhook_timeout_seconds * 1000;
  }

  @OnEvent(FeedbackRecorded.event)
  forward({ item }: FeedbackRecorded): void {
    if (!this.url) return;
    const call = this.post(this.url, item).finally(() => this.inFlight.delete(call));
    this.inFlight.add(call);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async post(url: string, item: FeedbackItem): Promise<void> {
    try {
      // `general.outbound` applies: a webhook to a private or loopback address must be allowed there.
      const body = JSON.stringify(item);
      const res = await outboundRequest(this.outbound, url, {
        method: 'POST',
        headers: {
          ...this.headers,
          'content-type': 'application/json',
          ...webhookHeaders(`msg_${randomUUID()}`, body, this.secret),
        },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.status < 200 || res.status >= 300) {
        this.logger.warn(
          `Feedback webhook answered ${res.status} for trace ${item.observability_trace_id}; not retried`,
        );
      }
    } catch (err) {
      const reason =
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs / 1000} s`
          : String((err as Error).cause ?? (err as Error).message);
      this.logger.warn(
        `Feedback webhook failed for trace ${item.observability_trace_id} (${reason}); not retried`,
      );
    }
  }
}
