import type { Frame, LiveStream } from './live-sse';
import { scriptedYaml } from './test-app';

/** A stream that says something, asks a name, then goes on with it. */
export interface InteractionEvent {
  event_type: string;
  execution_id: string;
  interaction_id: string;
  prompt: Record<string, unknown>;
  response_url: string;
}

export const STEPS = `- stream: { text: 'before the question' }
- prompt: { input_type: text, text: 'Your name, {{input}}?', placeholder: 'A name', save_as: name }
- step: { name: lookup, kind: tool, input: { who: '{{name}}' }, payload: { ok: true } }
- stream: { text: 'after {{name}}', delay_seconds: 0.01 }`;
export const YAML = scriptedYaml(STEPS, 'Hello {{name}}');

/** Every frame of an interactive stream carries `id: <n>`, increasing (but a first stream's trace preamble). */
export function expectNumbered(frames: Frame[]): number[] {
  const real = frames.filter((f) => !f.comment);
  if (real[0]?.fields.observability_trace !== undefined) {
    expect(real[0].id).toBeUndefined();
    real.shift();
  }
  expect(real.length).toBeGreaterThan(0);
  for (const f of real) expect(f.raw).toMatch(/^id: \d+\n/);
  const ids = real.map((f) => f.id!);
  ids.forEach((id, i) => {
    if (i > 0) expect(id).toBeGreaterThan(ids[i - 1]);
  });
  return ids;
}

export const valuesOf = (s: LiveStream) => s.dataFrames().map((d) => (d.json as { value: string }).value);
export const chatTextOf = (s: LiveStream) =>
  s
    .dataFrames()
    .map((d) => (d.json as { choices: { delta: { content?: string } }[] }).choices[0].delta.content ?? '')
    .join('');
