import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError, ErrorCode, type ValidationIssue } from '../core/errors/app-error';
import { readableBody } from '../core/validation/body.pipes';
import { validatePlain } from '../core/validation/validation-issues';
import {
  ConversationRenameDto,
  ConversationWriteDto,
  DEFAULT_LIST_LIMIT,
  MAX_CONVERSATION_BYTES,
  MAX_LIST_LIMIT,
  QUERY_MAX_LENGTH,
} from './dto/conversation.dto';

/** A conversation id as the page makes them (a UUID), or any id of the same safe characters. */
const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

const issue = (loc: (string | number)[], msg: string, input: unknown): ValidationIssue => ({
  type: 'value_error',
  loc,
  msg,
  input,
});

@Injectable()
export class ConversationIdPipe implements PipeTransform<string, string> {
  transform(id: string): string {
    if (!ID.test(id)) {
      throw AppError.validation([
        issue(['path', 'id'], 'Value error, 1-128 letters, digits, or _ . : -', id.slice(0, 130)),
      ]);
    }
    return id;
  }
}

/** The body of `PUT /conversations/{id}`: a title and turns, at most 512 KiB of them (else 413). */
@Injectable()
export class ConversationWritePipe implements PipeTransform<unknown, ConversationWriteDto> {
  transform(body: unknown): ConversationWriteDto {
    const checked = validatePlain(ConversationWriteDto, readableBody(body), ['body']);
    if (!checked.ok) throw AppError.validation(checked.issues);
    const bytes = Buffer.byteLength(JSON.stringify(checked.value.turns));
    if (bytes > MAX_CONVERSATION_BYTES) {
      throw new AppError(
        ErrorCode.PayloadTooLarge,
        `The conversation is ${bytes} bytes; at most ${MAX_CONVERSATION_BYTES} are kept`,
      );
    }
    return { title: checked.value.title.trim() || 'Conversation', turns: checked.value.turns };
  }
}

@Injectable()
export class ConversationRenamePipe implements PipeTransform<unknown, string> {
  transform(body: unknown): string {
    const checked = validatePlain(ConversationRenameDto, readableBody(body), ['body']);
    if (!checked.ok) throw AppError.validation(checked.issues);
    const title = checked.value.title.trim();
    if (title === '') throw AppError.validation([issue(['body', 'title'], 'Value error, empty title', '')]);
    return title;
  }
}

export interface ConversationQuery {
  q?: string;
  interactionId?: string;
  limit: number;
}

/** `GET /conversations?q=&interaction_id=&limit=`. */
@Injectable()
export class ConversationQueryPipe implements PipeTransform<unknown, ConversationQuery> {
  transform(query: unknown): ConversationQuery {
    const { q, limit, interaction_id } = (query ?? {}) as Record<string, unknown>;
    const issues: ValidationIssue[] = [];
    if (q !== undefined && (typeof q !== 'string' || q.length > QUERY_MAX_LENGTH)) {
      issues.push(issue(['query', 'q'], `Value error, at most ${QUERY_MAX_LENGTH} characters`, '…'));
    }
    if (interaction_id !== undefined && (typeof interaction_id !== 'string' || !ID.test(interaction_id))) {
      issues.push(issue(['query', 'interaction_id'], 'Value error, 1-128 letters, digits, or _ . : -', '…'));
    }
    const n = limit === undefined ? DEFAULT_LIST_LIMIT : Number(limit);
    if (typeof limit === 'object' || !Number.isInteger(n) || n < 1 || n > MAX_LIST_LIMIT) {
      issues.push(issue(['query', 'limit'], `Value error, an integer from 1 to ${MAX_LIST_LIMIT}`, limit));
    }
    if (issues.length) throw AppError.validation(issues);
    return { q: q as string | undefined, interactionId: interaction_id as string | undefined, limit: n };
  }
}
