import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { webhookSettingsOf, type AsyncConfig } from '../config/async.schema';
import { ServerConfig } from '../config/server-config';
import { OutboundPolicy } from '../core/outbound/outbound-policy';
import { WebhookDelivery } from '../core/outbound/webhook-delivery';
import { webhookUrlProblem as webhookUrlProblemOf } from '../core/outbound/webhook-url';
import { JobFinished } from './job-finished';
import { jobStatusBody } from './job-record';

/** Why a job's own `webhook_url` is refused, or null when it may be used. */
export function webhookUrlProblem(url: string, settings: AsyncConfig): string | null {
  return webhookUrlProblemOf(url, settings.webhook_allow_hosts);
}

/**
 * POSTs a finished job's status body, with its owner's id, to the server's webhook and the job's own,
 * on each JobFinished (emitted once per job, by the process that recorded its end), through the one
 * signed, retried delivery (core/outbound/webhook-delivery.ts). Both go out under `general.outbound`:
 * a job's own URL must also name a host in `webhook_allow_hosts`, but being listed there does not let
 * it reach a private address. Nothing waits for it; shutdown waits for the calls under way.
 */
@Injectable()
export class JobWebhook implements OnApplicationShutdown {
  private readonly logger = new Logger('JobWebhook');
  private readonly settings: AsyncConfig;
  private readonly delivery: WebhookDelivery;

  constructor(config: ServerConfig) {
    this.settings = config.general.async;
    const policy = new OutboundPolicy(config.general.outbound);
    this.delivery = new WebhookDelivery(policy, webhookSettingsOf(this.settings), 'Webhook');
  }

  @OnEvent(JobFinished.event)
  finished({ job }: JobFinished): void {
    const targets: string[] = [];
    if (this.settings.webhook_url) targets.push(this.settings.webhook_url);
    if (job.webhookUrl) {
      // Checked when submitted; checked again in case the list changed while the job ran.
      const problem = webhookUrlProblem(job.webhookUrl, this.settings);
      if (problem) this.logger.warn(`Webhook for job ${job.jobId} not sent: ${problem}`);
      else targets.push(job.webhookUrl);
    }
    // Job ids are chosen per user: the owner tells two users' `j1` apart.
    const body = JSON.stringify({
      event: 'job.finished',
      kind: job.kind,
      user_id: job.identity.userId,
      ...jobStatusBody(job),
    });
    // One message per finished job: its retries share the id, each attempt has its own timestamp.
    const message = {
      id: `msg_${job.id}`,
      body,
      contentType: 'application/json',
      about: `for job ${job.jobId}`,
    };
    for (const url of targets) void this.delivery.send(url, message);
  }

  onApplicationShutdown(): Promise<void> {
    return this.delivery.close();
  }
}
