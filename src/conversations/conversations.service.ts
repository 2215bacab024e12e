import { Injectable } from '@nestjs/common';
import { sql, type Transaction } from 'kysely';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { Identity } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import { Database } from '../db/database';
import { fromJson, toJson } from '../db/json-columns';
import type { Tables } from '../db/tables';
import type { ConversationDto, ConversationSummaryDto } from './dto/conversation.dto';

/** Most conversations kept per person: past it, the least recently updated go first. */
export const MAX_CONVERSATIONS_PER_OWNER = 200;

export interface ConversationWrite {
  title: string;
  turns: Record<string, unknown>[];
}

/** What a search looks in: the title and each turn's question and answer, lower-cased. */
export function searchTextOf(conversation: ConversationWrite): string {
  const parts = [conversation.title];
  for (const turn of conversation.turns) {
    if (typeof turn.question === 'string') parts.push(turn.question);
    if (typeof turn.answer === 'string') parts.push(turn.answer);
  }
  return parts.join('\n').toLowerCase();
}

/** The prompts asked in it (each turn's `promptIds`), space-separated. */
export function interactionIdsOf(conversation: ConversationWrite): string {
  const ids: string[] = [];
  for (const turn of conversation.turns) {
    if (!Array.isArray(turn.promptIds)) continue;
    for (const id of turn.promptIds) if (typeof id === 'string' && /^[\w.:-]{1,128}$/.test(id)) ids.push(id);
  }
  return ids.length ? ` ${ids.join(' ')} ` : '';
}

const iso = (ms: string | number) => new Date(Number(ms)).toISOString();

/**
 * The page's conversations, kept in the Database per identity: whoever presents the same identity
 * (session cookie, API key, JWT) from any browser sees the same list. Anonymous callers have none:
 * with no identity there is nobody to keep them for.
 */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly database: Database,
    private readonly config: ServerConfig,
  ) {}

  async list(
    identity: Identity,
    query: { q?: string; interactionId?: string; limit: number },
  ): Promise<ConversationSummaryDto[]> {
    const owner = ownerOf(identity);
    let select = this.database.db
      .selectFrom('page_conversation')
      .select(['id', 'title', 'updated_at'])
      .where('owner_id', '=', owner);
    const q = query.q?.trim().toLowerCase();
    if (q) {
      // A plain substring test: no LIKE pattern to escape, no regex to run on stored text.
      const found =
        this.database.dialect === 'postgres'
          ? sql<boolean>`strpos(search_text, ${q}) > 0`
          : sql<boolean>`instr(search_text, ${q}) > 0`;
      select = select.where(found);
    }
    if (query.interactionId) {
      const id = ` ${query.interactionId} `;
      const asked =
        this.database.dialect === 'postgres'
          ? sql<boolean>`strpos(interaction_ids, ${id}) > 0`
          : sql<boolean>`instr(interaction_ids, ${id}) > 0`;
      select = select.where(asked);
    }
    const rows = await select.orderBy('updated_at', 'desc').orderBy('id').limit(query.limit).execute();
    return rows.map((r) => ({ id: r.id, title: r.title, updated_at: iso(r.updated_at) }));
  }

  async get(identity: Identity, id: string): Promise<ConversationDto> {
    const row = await this.database.db
      .selectFrom('page_conversation')
      .select(['id', 'title', 'updated_at', 'turns'])
      .where('owner_id', '=', ownerOf(identity))
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound(id);
    return {
      id: row.id,
      title: row.title,
      updated_at: iso(row.updated_at),
      turns: fromJson<Record<string, unknown>[]>(row.turns),
    };
  }

  /** Creates or replaces the conversation; the oldest past the per-person cap are dropped. */
  async put(
    identity: Identity,
    id: string,
    conversation: ConversationWrite,
  ): Promise<ConversationSummaryDto> {
    const owner = ownerOf(identity);
    const now = Date.now();
    const turns = toJson(conversation.turns);
    const values = {
      title: conversation.title,
      updated_at: now,
      search_text: searchTextOf(conversation),
      interaction_ids: interactionIdsOf(conversation),
      turns,
      bytes: Buffer.byteLength(turns),
    };
    await this.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('page_conversation')
        .values({ owner_id: owner, id, ...values })
        .onConflict((oc) => oc.columns(['owner_id', 'id']).doUpdateSet(values))
        .execute();
      const beyond = await trx
        .selectFrom('page_conversation')
        .select('id')
        .where('owner_id', '=', owner)
        .orderBy('updated_at', 'desc')
        .orderBy('id')
        .offset(MAX_CONVERSATIONS_PER_OWNER)
        .limit(100)
        .execute();
      if (beyond.length > 0) {
        await trx
          .deleteFrom('page_conversation')
          .where('owner_id', '=', owner)
          .where(
            'id',
            'in',
            beyond.map((r) => r.id),
          )
          .execute();
      }
      await this.keepWithinBound(trx);
    });
    return { id, title: conversation.title, updated_at: iso(now) };
  }

  /**
   * Past `general.front_end.ui.conversations_max_mib` for everyone together, the least recently updated
   * conversations (anyone's) are dropped until the rest fit: what callers inventing identities can make
   * the server hold is bounded, whoever they are. Saves are a person's pace, so a sum per save is cheap.
   */
  private async keepWithinBound(trx: Transaction<Tables>): Promise<void> {
    const bound = this.config.frontEnd.ui.conversations_max_mib * 1024 * 1024;
    const { total } = await trx
      .selectFrom('page_conversation')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('bytes'), eb.lit(0)).as('total'))
      .executeTakeFirstOrThrow();
    let over = Number(total) - bound;
    while (over > 0) {
      const oldest = await trx
        .selectFrom('page_conversation')
        .select(['owner_id', 'id', 'bytes'])
        .orderBy('updated_at')
        .orderBy('owner_id')
        .orderBy('id')
        .limit(100)
        .execute();
      if (oldest.length === 0) return;
      for (const row of oldest) {
        if (over <= 0) break;
        await trx
          .deleteFrom('page_conversation')
          .where('owner_id', '=', row.owner_id)
          .where('id', '=', row.id)
          .execute();
        over -= row.bytes;
      }
    }
  }

  async rename(identity: Identity, id: string, title: string): Promise<ConversationSummaryDto> {
    const owner = ownerOf(identity);
    const row = await this.database.db
      .selectFrom('page_conversation')
      .select(['search_text', 'title', 'updated_at'])
      .where('owner_id', '=', owner)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound(id);
    // The old title leads the search text; the turns' text after it stays as it was.
    const rest = row.search_text.slice(row.title.toLowerCase().length);
    await this.database.db
      .updateTable('page_conversation')
      .set({ title, search_text: `${title.toLowerCase()}${rest}` })
      .where('owner_id', '=', owner)
      .where('id', '=', id)
      .execute();
    return { id, title, updated_at: iso(row.updated_at) };
  }

  async remove(identity: Identity, id: string): Promise<void> {
    const result = await this.database.db
      .deleteFrom('page_conversation')
      .where('owner_id', '=', ownerOf(identity))
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw notFound(id);
  }
}

function ownerOf(identity: Identity): string {
  if (identity.userId === null) {
    throw new AppError(
      ErrorCode.Unauthorized,
      'Conversations are kept per identity: send a session cookie, an API key or a token',
    );
  }
  return identity.userId;
}

// 404 for another person's conversation too: an id names nothing to someone it does not belong to.
const notFound = (id: string) => new AppError(ErrorCode.NotFound, `Conversation ${id} not found`);
