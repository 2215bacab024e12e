import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { orderStatusTool } from '../../examples/custom-tool/order-status.tool';
import { createApp } from '../../src/main';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import type { FunctionRegistry } from '../../src/runtime/function-registry';
import { FakeLlm, reply } from '../utils/fake-llm';
import { Executions, type Pause } from '../utils/hitl';
import { postJson } from '../utils/sse';
import { configFrom, type TestApp } from '../utils/test-app';

const ROOT = join(__dirname, '../..');

/** An example config as a user runs it, with their environment. */
async function startExample(
  file: string,
  env: NodeJS.ProcessEnv,
  registry?: FunctionRegistry,
): Promise<TestApp> {
  const config = configFrom(readFileSync(join(ROOT, file), 'utf8'), env, registry);
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}

describe('the example agents', () => {
  let llm: FakeLlm;
  const apps: TestApp[] = [];
  beforeAll(async () => (llm = await FakeLlm.start()));
  afterEach(async () => {
    expect(llm.pending).toBe(0);
    llm.reset();
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });
  afterAll(() => llm.close());

  it.each([
    ['NVIDIA_API_KEY', { NVIDIA_API_KEY: 'nvapi-x', NIM_BASE_URL: 'LLM' }, 'meta/llama-3.1-70b-instruct'],
    ['OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'LLM' }, 'gpt-4o-mini'],
  ])('calculator-agent.yml runs on the model of the key that is set (%s)', async (_key, env, model) => {
    const t = await startExample(
      'config/examples/calculator-agent.yml',
      Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === 'LLM' ? llm.url : v])),
    );
    apps.push(t);
    llm.script(
      reply.tools([{ name: 'calculator', arguments: { expression: '17% * 2345' } }]),
      reply.text('398.65'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'What is 17% of 2345?' });
    expect(res.json).toEqual({ value: '398.65' });
    expect(llm.requests[0].body.model).toBe(model);
    expect(llm.lastMessage(1)).toMatchObject({ role: 'tool', content: '398.65' });
  });

  it('confirm-before-acting.yml files the ticket only after the person said yes', async () => {
    const seen: { method?: string; url?: string; auth?: string; body: string }[] = [];
    const api: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(req.method === 'POST' ? '{"id":"T-9"}' : '[]');
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const tickets = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const env = { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: llm.url, TICKETS_API: tickets };
      const t = await startExample('config/examples/confirm-before-acting.yml', env);
      apps.push(t);
      const ticket = { title: 'Printer on floor 3 jammed', priority: 'normal' };
      llm.script(
        reply.tools([{ name: 'list_tickets', arguments: { query: 'printer floor 3' } }]),
        reply.tools([
          { name: 'ask_confirmation', arguments: { question: `File "${ticket.title}" (normal)?` } },
        ]),
        reply.tools([{ name: 'create_ticket', arguments: { body: ticket } }]),
        reply.text('Filed as T-9.'),
      );
      const start = await postJson(`${t.url}/v1/workflow`, {
        input_message: 'The printer on floor 3 is jammed',
      });
      expect(start.status).toBe(202);
      const pause = start.json as unknown as Pause;
      expect(pause.prompt).toMatchObject({
        input_type: 'radio',
        text: 'File "Printer on floor 3 jammed" (normal)?',
      });
      expect(seen.map((s) => s.method)).toEqual(['GET']);

      const ex = new Executions(t.url);
      expect(
        (await ex.answer(pause.response_url, { type: 'radio', selected_option: { id: 'yes' } })).status,
      ).toBe(204);
      expect(await ex.ended(pause.execution_id)).toMatchObject({
        status: 'completed',
        result: { value: 'Filed as T-9.' },
      });
      expect(seen).toEqual([
        { method: 'GET', url: '/tickets?q=printer%20floor%203', auth: 'Bearer dev-token', body: '' },
        { method: 'POST', url: '/tickets', auth: 'Bearer dev-token', body: JSON.stringify(ticket) },
      ]);
      expect(llm.requests[0].body.tools!.map((tool) => tool.function.name)).toEqual([
        'ask_confirmation',
        'ask_question',
        'list_tickets',
        'create_ticket',
      ]);
    } finally {
      await new Promise((r) => api.close(r));
    }
  });

  it('examples/custom-tool: a tool registered in TypeScript answers the model', async () => {
    const t = await startExample(
      'examples/custom-tool/order-agent.yml',
      { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: llm.url },
      builtinRegistry().register(orderStatusTool),
    );
    apps.push(t);
    llm.script(
      reply.tools([
        { name: 'order_status', arguments: { order_id: 'A-1002' } },
        { name: 'order_status', arguments: { order_id: 'Z-1' } },
      ]),
      reply.text('A-1002 arrives Thursday; I found no order Z-1.'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'Where are A-1002 and Z-1?' });
    expect(res.json).toEqual({ value: 'A-1002 arrives Thursday; I found no order Z-1.' });
    expect(llm.requests[1].body.messages.slice(-2).map((m) => m.content)).toEqual([
      '{"order_id":"A-1002","status":"shipped, arriving Thursday"}',
      'Error: There is no order "Z-1"',
    ]);
  });
});
