import { Logger } from '@nestjs/common';
import { OutboundError, type OutboundPolicy } from './outbound-policy';
import { outboundRequest } from './outbound-request';
import { redactUrl } from './redact-url';
import { webhookHeaders } from './webhook-signature';
import { webhookUrlProblem } from './webhook-url';

/** How webhooks go out (the jobs' `general.async.webhook_*` settings, read by the caller). */
export interface WebhookSettings {
  /** Hosts a URL a client chose may name (`webhook_allow_hosts`). */
  allowHosts: string[];
  /** Signs each attempt (Standard Webhooks) when set. */
  secret?: string;
  maxAttempts: number;
  /** The first retry's delay; each next one doubles. */
  backoffSeconds: number;
  timeoutSeconds: number;
}

/** One message to deliver: its retries (and its copies to several URLs) share `id`. */
export interface WebhookMessage {
  id: string;
  body: string;
  contentType: string;
  /** Headers of the receiver's own (credentials it gave), beside the signature headers. */
  headers?: Record<string, string>;
  /** What the message is about, for the log (`for job j1`). */
  about: string;
}

/** What a receiver answered that is worth another attempt: it may be gone by then. */
const retried = (status: number) => status >= 500 || status === 429 || status === 408;

/**
 * Signed webhook deliveries, one implementation for every sender (job webhooks, A2A push
 * notifications): each attempt is a POST under `general.outbound` (a private or loopback address
 * refused at connect time unless allowed there), with Standard Webhooks headers, retried on network
 * errors, 408, 429 and 5xx with exponential back-off. Nothing throws: a delivery given up is logged.
 * `close` (shutdown) lets attempts under way finish and starts no retry.
 */
export class WebhookDelivery {
  private readonly logger: Logger;
  private readonly inFlight = new Set<Promise<boolean>>();
  private closing = new AbortController();

  constructor(
    private readonly policy: OutboundPolicy,
    private readonly settings: WebhookSettings,
    /** The log's context, and the word for a delivery in its lines (`Webhook`, `Push notification`). */
    private readonly name: string,
  ) {
    this.logger = new Logger(name);
  }

  /**
   * Why a URL a client chose is refused, or null when messages may go there: http(s), no credentials,
   * a host in `allowHosts`, and not an address `general.outbound` refuses (an IP literal is checked
   * now; a name's addresses when a delivery connects).
   */
  problem(url: string, field: string): string | null {
    const unlisted = webhookUrlProblem(url, this.settings.allowHosts, field);
    if (unlisted) return unlisted;
    try {
      this.policy.checkUrl(new URL(url));
    } catch (err) {
      if (err instanceof OutboundError) return err.message;
      throw err;
    }
    return null;
  }

  /** Delivers `message` to `url`; resolves true once a 2xx answered, false when given up. */
  send(url: string, message: WebhookMessage): Promise<boolean> {
    const call = this.attempts(url, message).finally(() => this.inFlight.delete(call));
    this.inFlight.add(call);
    return call;
  }

  /**
   * Shutdown: attempts under way finish, no retry starts until the deliveries under way (and `pending`,
   * the sender's own queue of deliveries to come) have settled.
   */
  async close(pending: Promise<unknown>[] = []): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.inFlight, ...pending]);
    this.closing = new AbortController();
  }

  private async attempts(url: string, message: WebhookMessage): Promise<boolean> {
    const where = `${this.name} ${redactUrl(url)}`;
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      try {
        const res = await outboundRequest(this.policy, url, {
          method: 'POST',
          headers: {
            ...message.headers,
            'content-type': message.contentType,
            // Each attempt has its own timestamp, signed with it.
            ...webhookHeaders(message.id, message.body, this.settings.secret),
          },
          body: message.body,
          timeoutSeconds: this.settings.timeoutSeconds,
          maxBytes: 64 * 1024,
          overflow: 'truncate',
        });
        if (res.status >= 200 && res.status < 300) return true;
        reason = `answered ${res.status}`;
        if (!retried(res.status)) {
          this.logger.warn(`${where} ${reason} ${message.about}; not retried`);
          return false;
        }
      } catch (err) {
        reason = (err as Error).message;
      }
      const closing = this.closing.signal;
      if (attempt < this.settings.maxAttempts && !closing.aborted) {
        await this.pause(this.settings.backoffSeconds * 1000 * 2 ** (attempt - 1), closing);
      }
      // A close during the pause starts no retry either.
      if (attempt >= this.settings.maxAttempts || closing.aborted) {
        this.logger.warn(`${where} failed ${message.about} after ${attempt} attempts (${reason})`);
        return false;
      }
    }
  }

  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done);
    });
  }
}
