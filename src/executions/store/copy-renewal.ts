import { Logger } from '@nestjs/common';
import { COPY_MS, type RecordCopies, type Renewal } from './record-copies';

/** The version each record of `ids` has in the store now (a record missing from it is gone). */
export type ReadVersions = (ids: string[]) => Promise<Map<string, string>>;
/** Whether this replica is surely told of every write of the record (a member of its audience). */
export type Told = (id: string) => boolean;

/** How often the copies due are renewed: a copy polled all along is renewed well before it expires. */
const RENEW_EVERY_MS = COPY_MS / 4;
/** Records per query (their ids are one array parameter). */
const PER_QUERY = 1000;

const logger = new Logger('CopyRenewal');

/**
 * Keeps the copies that polls are served from good past COPY_MS without reading their records again:
 * every RENEW_EVERY_MS, one query reads the versions of the copies due (record-copies.ts), and each
 * copy whose record has not changed is renewed. A status poll of a record nobody changes then costs no
 * PostgreSQL read at all, where each copy cost one read every COPY_MS. A copy of a record whose writes
 * this replica may no longer be told of (its membership of the record's audience may have lapsed) is
 * not renewed: it goes, and the next poll reads the record and joins again.
 */
export class CopyRenewal {
  private timer?: NodeJS.Timeout;
  private renewing?: Promise<void>;

  constructor(
    private readonly copies: RecordCopies,
    private readonly versions: ReadVersions,
    private readonly told: Told,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.renew(), RENEW_EVERY_MS).unref();
  }

  /** Stops renewing (copies then expire); resolves once a renewal under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
  }

  /** Renews the copies due now (once at a time: a renewal still under way is not doubled). */
  renew(): Promise<void> {
    return (this.renewing ??= this.renewDue().finally(() => (this.renewing = undefined)));
  }

  private async renewDue(): Promise<void> {
    const due: Renewal[] = [];
    for (const renewal of this.copies.due()) {
      if (this.told(renewal.ticket.id)) due.push(renewal);
      else this.copies.renewed(renewal, undefined);
    }
    for (let from = 0; from < due.length; from += PER_QUERY) {
      const batch = due.slice(from, from + PER_QUERY);
      const versions = await this.versions(batch.map((each) => each.ticket.id)).catch((err: Error) => {
        logger.warn(`Copies not renewed (${err.message}): polls read their records again`);
        return new Map<string, string>();
      });
      for (const renewal of batch) this.copies.renewed(renewal, versions.get(renewal.ticket.id));
    }
  }
}
