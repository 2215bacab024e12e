import { Type } from 'class-transformer';
import { IsArray, IsOptional, IsString, ValidateIf, ValidateNested, IsDefined } from 'class-validator';
import { lastUserText, type ChatRequest } from '../chat-input';
import { ChatMessageInput } from './chat-message';
import type { ConfigProblem, FunctionType } from '../function-type';
import { promptProblems } from '../prompts';
import { templateNames } from '../template';
import { placeholderInHost } from '../tools/url-template';
import { STEP_ACTIONS, ScriptedConfig, type ScriptedStepConfig } from './scripted.config';
import { ScriptRun } from './scripted-run';

/** NeMo Agent Toolkit's agent input: a single message or a conversation. */
export class ScriptedInput {
  @ValidateIf((o: ScriptedInput) => o.messages === undefined)
  @IsDefined()
  @IsString()
  input_message?: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ChatMessageInput)
  messages?: ChatMessageInput[];
}

function inputText(input: ScriptedInput): string {
  if (typeof input.input_message === 'string') return input.input_message;
  return input.messages?.length ? lastUserText(input.messages) : '';
}

/** The scripted workflow: drives every path (steps, streaming, failures, prompts) without an LLM. */
export const scriptedFunction: FunctionType<ScriptedConfig> = {
  type: 'scripted',
  description: 'Runs a fixed list of steps: intermediate steps, streamed text, prompts, sleeps, failures.',
  config: ScriptedConfig,
  check(config) {
    const problems: ConfigProblem[] = [];
    const known = new Set(['input']);
    config.steps.forEach((step, i) => {
      const actions = Object.keys(step).filter((k) => step[k as keyof ScriptedStepConfig] !== undefined);
      const valid = actions.filter((k) => (STEP_ACTIONS as readonly string[]).includes(k));
      if (valid.length !== 1 || actions.length !== 1) {
        problems.push({
          loc: ['steps', i],
          message: `a step needs exactly one of ${STEP_ACTIONS.join(', ')}; found ${actions.join(', ') || 'none'}`,
        });
      }
      const text = step.stream?.text ?? step.fail?.message ?? step.prompt?.text ?? step.fetch?.url;
      for (const name of text ? templateNames(text) : []) {
        if (!known.has(name)) {
          problems.push({
            loc: ['steps', i],
            message: `template names "${name}", which no earlier step defines`,
          });
        }
      }
      if (step.prompt) {
        for (const p of promptProblems(step.prompt)) {
          problems.push({ loc: ['steps', i, 'prompt', p.field], message: p.message });
        }
        if (step.prompt.save_as) known.add(step.prompt.save_as);
      }
      if (step.fetch && !/^https?:\/\//.test(step.fetch.url)) {
        problems.push({ loc: ['steps', i, 'fetch', 'url'], message: 'must be an http(s) URL' });
      } else if (step.fetch && placeholderInHost(step.fetch.url)) {
        problems.push({
          loc: ['steps', i, 'fetch', 'url'],
          message: 'no {{placeholder}} may choose the host: put placeholders in the path or the query',
        });
      }
      if (step.fetch?.save_as) known.add(step.fetch.save_as);
    });
    for (const name of [
      ...templateNames(config.output ?? ''),
      ...templateNames(config.cancel_output ?? ''),
    ]) {
      if (!known.has(name) && name !== 'streamed') {
        problems.push({ loc: ['output'], message: `template names "${name}", which no step defines` });
      }
    }
    return problems;
  },
  build(config, context) {
    return {
      type: 'scripted',
      description: config.description ?? 'A scripted workflow.',
      input: { kind: 'schema', dto: ScriptedInput },
      fromChat: (request: ChatRequest) => ({ messages: request.messages }),
      run(input, ctx) {
        let vars: Record<string, unknown>;
        try {
          vars = { input: inputText(input as ScriptedInput) };
        } catch (err) {
          return Promise.reject(err as Error);
        }
        return new ScriptRun(config, ctx, vars, context.outbound).start();
      },
    };
  },
};
