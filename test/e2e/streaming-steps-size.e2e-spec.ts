import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { linesWith, postStream, type StreamResult } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/** 2,000 pieces of 8 characters: a model that streams 16 KB in tiny chunks. */
const ANSWER = 'abcdefg '.repeat(2_000);
const QUESTION = `Summarise: ${'q'.repeat(10_000)}`;

interface Step {
  id: string;
  name: string;
  payload: string;
}

/** What a client that replaces each step by its id (NAT's UI, ours) shows at the end. */
function latestById(res: StreamResult): Map<string, Step> {
  const shown = new Map<string, Step>();
  for (const step of linesWith(res, 'intermediate_data') as Step[]) shown.set(step.id, step);
  return shown;
}

describe('a model streaming many small tokens: the steps of the stream grow with its output, not with its square', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (llm) => agentYaml(llm, { _type: 'chat_completion' }),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  // Before: each token re-sent the 10 KB question and the answer so far, 2,000 times (about 36 MB).
  const bound = 20 * (QUESTION.length + ANSWER.length);

  it('/v1/workflow/stream sends a bounded amount, and the model step ends showing the whole answer', async () => {
    llm.script(reply.text(ANSWER));
    const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: QUESTION });
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(bound);
    const values = res.events.filter((e) => e.event === undefined).map((e) => JSON.parse(e.data) as unknown);
    expect(values.map((v) => (v as { value: string }).value).join('')).toBe(ANSWER);
    const model = [...latestById(res).values()].find((s) => s.name === 'fake-model')!;
    expect(model.payload).toContain(QUESTION);
    expect(model.payload.endsWith(`**Output:**\n${ANSWER}`)).toBe(true);
  });

  it('/v1/chat/completions streamed sends a bounded amount with its intermediate steps', async () => {
    llm.script(reply.text(ANSWER));
    const res = await postStream(`${t.url}/v1/chat/completions`, {
      model: 'agent',
      stream: true,
      messages: [{ role: 'user', content: QUESTION }],
    });
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(bound);
    const tokenUpdates = (linesWith(res, 'intermediate_data') as Step[]).filter(
      (s) => s.name === 'fake-model' && s.payload.includes('**Output:**'),
    );
    expect(tokenUpdates.length).toBeGreaterThan(1);
    expect(tokenUpdates.at(-1)!.payload.endsWith(`**Output:**\n${ANSWER}`)).toBe(true);
  });
});
