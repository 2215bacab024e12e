import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { START_MS } from '../utils/timing';
import { reply, userMessage, WsClient } from '../utils/ws-client';

const CONNECTIONS = 500;

describe('WebSocket gateway under load', () => {
  let t: TestApp;
  beforeAll(async () => {
    // One test client stands for many people, so its address gets room for all of them.
    t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: text, text: 'Code for {{input}}?', save_as: code }`,
        '{{input}} -> {{code}}',
        `general:\n  max_waiting_executions_per_address: ${CONNECTIONS}`,
      ),
    );
  });
  afterAll(() => t.close());

  it(
    `${CONNECTIONS} connections each run a workflow with one prompt: all answered, all complete, no cross-talk`,
    async () => {
      const clients = await Promise.all(
        Array.from({ length: CONNECTIONS }, (_, i) => WsClient.connect(t.url, { session: `user-${i}` })),
      );
      try {
        const metrics = await (await fetch(`${t.url}/metrics`)).text();
        expect(metrics).toContain(`interlude_websocket_connections ${CONNECTIONS}`);
        const outcomes = await Promise.all(
          clients.map(async (ws, i) => {
            ws.send(
              userMessage(`job-${i}`, { id: `m-${i}`, conversation_id: `c-${i}`, schema_type: 'chat' }),
            );
            const prompt = await ws.next(START_MS);
            expect(prompt.content.text).toBe(`Code for job-${i}?`);
            ws.send(reply(`secret-${i}`, { parent_id: `m-${i}`, conversation_id: `c-${i}` }));
            const run = await ws.run(START_MS);
            for (const m of run) expect(m).toMatchObject({ parent_id: `m-${i}`, conversation_id: `c-${i}` });
            return run.find((m) => m.status === 'in_progress')?.content.text;
          }),
        );
        expect(outcomes).toEqual(clients.map((_, i) => `job-${i} -> secret-${i}`));
      } finally {
        clients.forEach((c) => c.close());
      }
    },
    3 * START_MS,
  );
});
