import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import ipaddr from 'ipaddr.js';
import type { AsyncConfig } from '../config/async.schema';
import { ServerConfig } from '../config/server-config';
import { OutboundPolicy } from '../core/outbound/outbound-policy';
import { outboundRequest } from '../core/outbound/outbound-request';
import { redactUrl } from '../core/outbound/redact-url';
import { webhookHeaders } from '../core/outbound/webhook-signature';
import { JobFinished } from './job-finished';
import { jobStatusBody, type Job } from './job-record';

/** Whether `host` is listed in `allowed` (names, `*.example.com` for subdomains, IP addresses). */
export function hostListed(host: string, allowed: string[]): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return allowed.some((entry) => {
    const want = entry.trim().toLowerCase();
    if (want.startsWith('*.')) return name.endsWith(want.slice(1));
    if (ipaddr.isValid(want) && ipaddr.isValid(name)) {
      return ipaddr.process(want).toString() === ipaddr.process(name).toString();
    }
    return want === name;
  });
}

/** Why a job's own `webhook_url` is refused, or null when it may be used. */
export function webhookUrlProblem(url: string, settings: AsyncConfig): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'webhook_url is not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'webhook_url must be http(s)';
  if (parsed.username || parsed.password) return 'webhook_url may not carry credentials';
  if (!hostListed(parsed.hostname, settings.webhook_allow_hosts)) {
    return `webhook_url host ${parsed.hostname} is not in general.async.webhook_allow_hosts`;
  }
  return null;
}

/**
 * POSTs a finished job's status body, with its owner's id, to the server's webhook and the job's own,
 * on each JobFinished (emitted once per job, by the process that recorded its end).
 * Retried with exponential back-off on network errors, 429 and 5xx; each attempt carries Standard
 * Webhooks headers, signed when a secret is set. Nothing waits for it; shutdown waits for the calls
 * under way.
 */
@Injectable()
export class JobWebhook implements OnApplicationShutdown {
  private readonly logger = new Logger('JobWebhook');
  private readonly settings: AsyncConfig;
  /**
   * Both webhooks go out under `general.outbound`: a job's own URL must also name a host in
   * `webhook_allow_hosts`, but being listed there does not let it reach a private address.
   */
  private readonly policy: OutboundPolicy;
  private readonly inFlight = new Set<Promise<void>>();
  private closing = new AbortController();

  constructor(config: ServerConfig) {
    this.settings = config.general.async;
    this.policy = new OutboundPolicy(config.general.outbound);
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
    if (targets.length === 0) return;
    // Job ids are chosen per user: the owner tells two users' `j1` apart.
    const body = JSON.stringify({
      event: 'job.finished',
      kind: job.kind,
      user_id: job.identity.userId,
      ...jobStatusBody(job),
    });
    for (const url of targets) {
      const call = this.deliver(url, body, job).finally(() => this.inFlight.delete(call));
      this.inFlight.add(call);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // Calls under way finish their current attempt; no retry is started once the server stops.
    this.closing.abort();
    await Promise.allSettled([...this.inFlight]);
    this.closing = new AbortController();
  }

  private async deliver(url: string, body: string, job: Job): Promise<void> {
    const jobId = job.jobId;
    // One message per finished job: its retries share the id, each attempt has its own timestamp.
    const messageId = `msg_${job.id}`;
    const max = this.settings.webhook_max_attempts;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      try {
        const res = await outboundRequest(this.policy, url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...webhookHeaders(messageId, body, this.settings.webhook_secret),
          },
          body,
          timeoutSeconds: this.settings.webhook_timeout_seconds,
          maxBytes: 64 * 1024,
          overflow: 'truncate',
        });
        if (res.status >= 200 && res.status < 300) return;
        reason = `answered ${res.status}`;
        if (res.status < 500 && res.status !== 429 && res.status !== 408) {
          this.logger.warn(`Webhook ${redactUrl(new URL(url))} ${reason} for job ${jobId}; not retried`);
          return;
        }
      } catch (err) {
        reason = String((err as Error).message);
      }
      if (attempt >= max || this.closing.signal.aborted) {
        this.logger.warn(
          `Webhook ${redactUrl(new URL(url))} failed for job ${jobId} after ${attempt} attempts (${reason})`,
        );
        return;
      }
      await this.pause(this.settings.webhook_backoff_seconds * 1000 * 2 ** (attempt - 1));
    }
  }

  private pause(ms: number): Promise<void> {
    const signal = this.closing.signal;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
