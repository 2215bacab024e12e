import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNumber,
  IsString,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IfPresent } from '../core/validation/if-present.decorator';

export const PROMPT_TYPES = [
  'text',
  'notification',
  'binary_choice',
  'radio',
  'checkbox',
  'dropdown',
] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];
export const CHOICE_TYPES: readonly PromptType[] = ['binary_choice', 'radio', 'checkbox', 'dropdown'];
export const DEFAULT_PROMPT_ERROR = 'This prompt is no longer available.';

export interface PromptOption {
  id: string;
  label: string;
  value: string;
  description?: string;
}

/** A question for a human, exactly as it goes on the wire (`input_type` discriminator). */
export interface Prompt {
  input_type: PromptType;
  text: string;
  /** Seconds, or null for no timeout. */
  timeout: number | null;
  error: string;
  placeholder?: string | null;
  required?: boolean;
  options?: PromptOption[];
  /** Beyond NAT: a choice prompt also accepts a typed answer. */
  allow_free_text?: boolean;
  /** Beyond NAT: the human may decline (`{"type": "cancel"}`). */
  allow_cancel?: boolean;
}

/** An answer, normalized: `type` is the prompt's input type, or `cancel`. */
export type PromptAnswer =
  | { type: 'text'; text: string }
  | { type: 'notification' }
  | {
      type: 'binary_choice' | 'radio' | 'dropdown';
      selected_option: PromptOption;
      text?: string;
      /** Beyond NAT: an approval's replacement arguments for the tool it approves (AG-UI's editedArgs). */
      edited_args?: Record<string, unknown>;
    }
  | { type: 'checkbox'; selected_options: PromptOption[]; text?: string }
  | { type: 'cancel' };

/**
 * How large a prompt may be. A prompt is kept with its waiting execution (in memory, and in the shared
 * store's record) and sent to every client that shows it; a model asks through its tools (ask_question),
 * so without bounds one reply could park megabytes per execution.
 */
export const PROMPT_LIMITS = {
  text: 65_536,
  options: 100,
  id: 256,
  label: 1_000,
  description: 4_000,
  /** The placeholder, the error shown once it is no longer available, and an option's value. */
  short: 4_000,
} as const;

export class PromptOptionConfig {
  @IsDefined() @IsString() @MaxLength(PROMPT_LIMITS.id) id!: string;
  @IsDefined() @IsString() @MaxLength(PROMPT_LIMITS.label) label!: string;
  @IsDefined() @IsString() @MaxLength(PROMPT_LIMITS.short) value!: string;
  @IfPresent() @IsString() @MaxLength(PROMPT_LIMITS.description) description?: string;
}

/** A prompt as a workflow (or the scripted config) defines it; validated before anyone is asked. */
export class PromptConfig {
  @IsDefined() @IsIn(PROMPT_TYPES as unknown as string[]) input_type!: PromptType;
  @IsDefined() @IsString() @MaxLength(PROMPT_LIMITS.text) text!: string;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsNumber() @Min(0.001) timeout?: number | null;
  @IfPresent() @IsString() @MaxLength(PROMPT_LIMITS.short) error?: string;
  @IfPresent() @IsString() @MaxLength(PROMPT_LIMITS.short) placeholder?: string;
  @IfPresent() @IsBoolean() required?: boolean;
  @ValidateIf((o: PromptConfig) => CHOICE_TYPES.includes(o.input_type))
  @IsDefined({ message: 'choice prompts need options' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PROMPT_LIMITS.options)
  @ValidateNested({ each: true })
  @Type(() => PromptOptionConfig)
  options?: PromptOptionConfig[];
  @IfPresent() @IsBoolean() allow_free_text?: boolean;
  @IfPresent() @IsBoolean() allow_cancel?: boolean;
}

/** Problems that span fields; empty when the prompt can be asked. */
export function promptProblems(p: PromptConfig): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  if (!CHOICE_TYPES.includes(p.input_type) && p.options !== undefined) {
    problems.push({ field: 'options', message: `a ${p.input_type} prompt takes no options` });
  }
  if (p.input_type === 'binary_choice' && p.options && p.options.length !== 2) {
    problems.push({
      field: 'options',
      message: `a binary_choice prompt needs exactly two options, not ${p.options.length}`,
    });
  }
  const ids = (p.options ?? []).map((o) => o.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup !== undefined) problems.push({ field: 'options', message: `option id "${dup}" is used twice` });
  return problems;
}

/** The wire form of a validated prompt config, with NAT's defaults filled in. */
export function toPrompt(p: PromptConfig): Prompt {
  const timeout = p.timeout ?? null;
  const error = p.error ?? DEFAULT_PROMPT_ERROR;
  // A text prompt as one literal: its fields then live in the object (a waiting execution keeps it).
  const prompt: Prompt =
    p.input_type === 'text'
      ? {
          input_type: p.input_type,
          text: p.text,
          timeout,
          error,
          placeholder: p.placeholder ?? null,
          required: p.required ?? true,
        }
      : { input_type: p.input_type, text: p.text, timeout, error };
  if (CHOICE_TYPES.includes(p.input_type)) {
    prompt.options = (p.options ?? []).map((o) => ({
      id: o.id,
      label: o.label,
      value: o.value,
      ...(o.description !== undefined ? { description: o.description } : {}),
    }));
    prompt.required = p.required ?? true;
  }
  if (p.allow_free_text) prompt.allow_free_text = true;
  if (p.allow_cancel) prompt.allow_cancel = true;
  return prompt;
}

/** How a prompt's answer reads in templates: `{{name}}`, `{{name.label}}`, `{{name.id}}`. */
export function answerVariables(answer: PromptAnswer): Record<string, unknown> {
  const join = (xs: string[]) => xs.join(', ');
  const make = (value: string, extra: Record<string, string>) => ({ ...extra, value, toString: () => value });
  switch (answer.type) {
    case 'text':
      return make(answer.text, { text: answer.text, id: '', label: answer.text });
    case 'notification':
      return make('', {});
    case 'cancel':
      return make('', { cancelled: 'true' });
    case 'checkbox': {
      const value = answer.text ?? join(answer.selected_options.map((o) => o.value));
      return make(value, {
        id: join(answer.selected_options.map((o) => o.id)),
        label: join(answer.selected_options.map((o) => o.label)),
        text: answer.text ?? '',
      });
    }
    default: {
      const o = answer.selected_option;
      return make(answer.text ?? o.value, { id: o.id, label: o.label, text: answer.text ?? '' });
    }
  }
}

/** Why a human answer does not fit its prompt; the message says what was expected. */
export class AnswerMismatch extends Error {
  /** Said to the person who answered (see isExposed). */
  readonly expose = true;

  constructor(message: string) {
    super(message);
    this.name = 'AnswerMismatch';
  }
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new AnswerMismatch(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function pickOption(prompt: Prompt, raw: unknown): PromptOption {
  const given = asObject(raw, 'each selected option');
  const option =
    prompt.options?.find((o) => o.id === given.id) ??
    prompt.options?.find((o) => given.id === undefined && o.value === given.value);
  if (!option) {
    const ids = (prompt.options ?? []).map((o) => `"${o.id}"`).join(', ');
    throw new AnswerMismatch(
      `selected option ${JSON.stringify(given.id ?? given.value)} is not one of the prompt's options (${ids})`,
    );
  }
  return option;
}

/**
 * Checks a raw answer against its prompt and normalizes it. Accepts NAT's `type` discriminator and its
 * docs' `input_type`; a checkbox answer as `selected_options`, or `selected_option` (one option or a list).
 */
export function normalizeAnswer(prompt: Prompt, raw: unknown): PromptAnswer {
  const body = asObject(raw, 'response');
  const type = body.type ?? body.input_type;
  if (typeof type !== 'string')
    throw new AnswerMismatch(`response needs a "type" (expected "${prompt.input_type}")`);
  if (type === 'cancel') {
    if (!prompt.allow_cancel)
      throw new AnswerMismatch('this prompt cannot be cancelled (allow_cancel is not set)');
    return { type: 'cancel' };
  }
  const freeText = typeof body.text === 'string' ? body.text : undefined;
  if (type === 'text' && prompt.input_type !== 'text') {
    if (!prompt.allow_free_text) {
      throw new AnswerMismatch(
        `expected a "${prompt.input_type}" response; this prompt does not accept free text`,
      );
    }
    if (freeText === undefined) throw new AnswerMismatch('a text response needs a "text" string');
    return { type: 'text', text: freeText };
  }
  if (type !== prompt.input_type)
    throw new AnswerMismatch(`expected a "${prompt.input_type}" response, got "${type}"`);
  switch (prompt.input_type) {
    case 'text':
      if (freeText === undefined) throw new AnswerMismatch('a text response needs a "text" string');
      if (prompt.required !== false && freeText.trim() === '')
        throw new AnswerMismatch('this prompt requires a non-empty text');
      return { type: 'text', text: freeText };
    case 'notification':
      return { type: 'notification' };
    case 'checkbox': {
      // NAT's checkbox answer model carries one `selected_option`: a one-item selection.
      const single = body.selected_option;
      const raw =
        body.selected_options ??
        (single !== null && typeof single === 'object' && !Array.isArray(single) ? [single] : single);
      if (!Array.isArray(raw))
        throw new AnswerMismatch('a checkbox response needs "selected_options": a list of options');
      const chosen = raw.map((o) => pickOption(prompt, o));
      if (prompt.required !== false && chosen.length === 0)
        throw new AnswerMismatch('this prompt requires at least one option');
      return {
        type: 'checkbox',
        selected_options: chosen,
        ...(prompt.allow_free_text && freeText !== undefined ? { text: freeText } : {}),
      };
    }
    default: {
      if (body.selected_option === undefined)
        throw new AnswerMismatch(`a ${prompt.input_type} response needs "selected_option"`);
      const edited = body.edited_args;
      if (edited !== undefined && (edited === null || typeof edited !== 'object' || Array.isArray(edited)))
        throw new AnswerMismatch('"edited_args" must be an object (the replacement arguments)');
      return {
        type: prompt.input_type,
        selected_option: pickOption(prompt, body.selected_option),
        ...(prompt.allow_free_text && freeText !== undefined ? { text: freeText } : {}),
        ...(edited !== undefined ? { edited_args: edited as Record<string, unknown> } : {}),
      };
    }
  }
}

/** A prompt's wait ended without an answer. */
export class PromptTimeoutError extends Error {
  readonly expose = true;

  constructor(readonly timeoutSeconds: number) {
    super(`HITL prompt timed out after ${timeoutSeconds}s waiting for human response`);
    this.name = 'TimeoutError';
  }
}

/** NAT waits this long past a prompt's own timeout before giving up. */
export const PROMPT_GRACE_SECONDS = 5;
