import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { checkedInput } from '../core/validation/body.pipes';
import { functionInputDto } from '../http-responders/dto/function-input.dto';
import type { ExecutionRoute } from '../http-responders/execution-responder';
import type { ChatMessage } from '../runtime/chat-input';
import type { BuiltFunction, Ctor } from '../runtime/function-type';
import { checkAttachments } from '../runtime/attachments';
import { GENERATE_FACE, type GenerateFaceOptions } from './generate-face';

/**
 * One base path of the generate routes (`/v1/workflow`, legacy `/generate`, an endpoint's path): what
 * runs there and how it answers. Each mount provides its own to the controller it serves.
 */
export class GenerateRoute {
  /** The DTO the input is checked against (and documented as). */
  readonly input: Ctor;

  constructor(
    readonly base: string,
    /** The function run there: the workflow, or an endpoint's function. */
    readonly workflow: BuiltFunction,
    /** Versioned routes are interactive (prompts, 202, typed events); legacy ones are not. */
    readonly versioned: boolean,
    /** The versioned base path, named in the error when a workflow asks on a legacy route. */
    readonly interactiveBase: string | null,
    /** An extra endpoint (`general.front_end.endpoints`) runs its function in the workflow's place. */
    readonly endpoint: boolean,
  ) {
    this.input = functionInputDto(workflow);
  }

  /** How the execution started at `suffix` (`/`, `/stream`, `/full`) is shown. */
  face(suffix: string, steps: GenerateFaceOptions['steps'] = { raw: 'all' }): ExecutionRoute {
    const options: GenerateFaceOptions = {
      steps,
      errors: this.versioned ? 'event' : 'bare',
      interactive: this.versioned,
    };
    return {
      ref: { name: GENERATE_FACE, options },
      workflow: this.endpoint ? this.workflow : undefined,
      interactive: this.versioned,
      interactiveRoute:
        this.interactiveBase === null ? undefined : `${this.interactiveBase}${suffix === '/' ? '' : suffix}`,
    };
  }
}

/** Checks the input (the JSON body, or the query of a GET or DELETE endpoint) against the route's DTO. */
@Injectable()
export class GenerateInputPipe implements PipeTransform {
  constructor(private readonly route: GenerateRoute) {}

  transform(input: unknown, metadata: ArgumentMetadata): unknown {
    const from = metadata.type === 'query' ? 'query' : 'body';
    const checked = checkedInput(this.route.input, input, from);
    const messages = (checked as { messages?: unknown }).messages;
    if (Array.isArray(messages))
      checkAttachments(messages as ChatMessage[], this.route.workflow, [from, 'messages']);
    return checked;
  }
}
