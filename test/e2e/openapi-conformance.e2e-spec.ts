import { CheckedClient, DocumentedResponses } from '../utils/documented-responses';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

/*
 * A client generated from /openapi.json deserializes each answer by the schema documented for its
 * status and content type. These drive every face that answers JSON, in success and in error, and
 * check each answer against the document the same server serves.
 */

const ALICE = { cookie: 'nat-session=alice' };
const LARGE = { input_message: 'x'.repeat(8192) };
const chat = (content: string) => ({ messages: [{ role: 'user', content }] });
const SCRIPTED = `- step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: { hits: 1 } }
- stream: { text: 'Plan for {{input}}' }`;
const ASKING = `- prompt: { input_type: text, text: 'Who is it for?', save_as: audience }
- prompt:
    input_type: binary_choice
    text: 'Include Q4?'
    options: [{ id: 'yes', label: 'Yes', value: 'yes' }, { id: 'no', label: 'No', value: 'no' }]
- stream: { text: 'Report for {{audience}}' }`;
const GENERAL = `general:
  front_end:
    max_body_bytes: 4096
eval:
  evaluators:
    exact: { _type: exact_match }
`;

async function clientFor(t: TestApp, headers: Record<string, string> = ALICE): Promise<CheckedClient> {
  return new CheckedClient(t.url, await DocumentedResponses.of(t.url), headers);
}

describe('every answer fits the schema /openapi.json documents for it', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(scriptedYaml(SCRIPTED, undefined, GENERAL))));
  afterAll(() => t.close());

  it('the workflow routes: a text output, invalid bodies, a body too large', async () => {
    const c = await clientFor(t);
    for (const base of ['/v1/workflow', '/generate']) {
      for (const suffix of ['', '/stream', '/full']) {
        await c.send('POST', `${base}${suffix}`, { input_message: 'Lisbon' });
        for (const bad of [{ input_message: 5 }, [1], '"x"', '{not json', LARGE]) {
          await c.send('POST', `${base}${suffix}`, bad);
        }
      }
    }
    expect(c.problems).toEqual([]);
  });

  it('the chat and OpenAI routes, in success and in error', async () => {
    const c = await clientFor(t);
    for (const path of ['/v1/chat', '/chat', '/v1/chat/stream', '/chat/stream', '/v1/chat/completions']) {
      await c.send('POST', path, chat('Lisbon'));
      await c.send('POST', path, { messages: 'x' });
      await c.send('POST', path, '{not json');
      await c.send('POST', path, { messages: [{ role: 'user', content: 'x'.repeat(8192) }] });
    }
    await c.send('POST', '/v1/chat/completions', { ...chat('Lisbon'), stream: true });
    await c.send('POST', '/v1/chat/completions', { ...chat('Lisbon'), n: 2 });
    expect(c.problems).toEqual([]);
  });

  it('the Responses API: create, read, list input items, cancel, delete, unknown ids', async () => {
    const c = await clientFor(t);
    const created = await c.send('POST', '/v1/responses', { input: 'Lisbon' });
    const id = created.json().id as string;
    for (const path of [`/v1/responses/${id}`, `/v1/responses/${id}/input_items`]) await c.send('GET', path);
    await c.send('GET', `/v1/responses/${id}?stream=true`);
    await c.send('POST', `/v1/responses/${id}/cancel`);
    await c.send('DELETE', `/v1/responses/${id}`);
    await c.send('GET', `/v1/responses/${id}`);
    await c.send('GET', '/v1/responses/resp_nope/input_items');
    await c.send('POST', '/v1/responses', { input: 5 });
    await c.send('POST', '/v1/responses', { input: 'Lisbon', stream: true });
    await c.send('POST', '/v1/responses', { input: 'x'.repeat(8192) });
    expect(c.problems).toEqual([]);
  });

  it('async jobs: submitted, ended within sync_timeout, polled, listed, cancelled when ended', async () => {
    const c = await clientFor(t);
    for (const base of ['/v1/workflow', '/generate']) {
      const submitted = await c.send('POST', `${base}/async`, { input_message: 'Lisbon' });
      const jobId = submitted.json().job_id as string;
      await eventually(async () => {
        const job = await c.send('GET', `${base}/async/job/${jobId}`);
        expect(job.json().status).toBe('success');
      });
      await c.send('POST', `${base}/async`, { input_message: 'Porto', sync_timeout: 10 });
      await c.send('POST', `${base}/async`, { input_message: 'Porto', sync_timeout: 'x' });
      await c.send('GET', `${base}/async/job/nope`);
      if (base === '/v1/workflow') {
        await c.send('DELETE', `${base}/async/job/${jobId}`);
        await c.send('DELETE', `${base}/async/job/nope`);
        await c.send('GET', `${base}/async/jobs`);
        await c.send('GET', `${base}/async/jobs?limit=x`);
      }
    }
    expect(c.problems).toEqual([]);
  });

  it('evaluation: one item scored, unknown evaluators and configs, the job routes', async () => {
    const c = await clientFor(t);
    const item = { id: 'q1', input_obj: 'Lisbon', expected_output_obj: 'Lisbon', output_obj: 'Lisbon' };
    await c.send('POST', '/evaluate/item', { item, evaluator_name: 'exact' });
    await c.send('POST', '/evaluate/item', {
      item: { ...item, id: 7, output_obj: 3 },
      evaluator_name: 'exact',
    });
    await c.send('POST', '/evaluate/item', { item, evaluator_name: 'nope' });
    await c.send('POST', '/evaluate/item', { item: 5 });
    await c.send('POST', '/evaluate', { config_file: 'nope.yml' });
    for (const path of ['/evaluate/job/last', '/evaluate/job/nope', '/evaluate/jobs'])
      await c.send('GET', path);
    expect(c.problems).toEqual([]);
  });

  it('feedback, conversations, health, metrics and the MCP client lists', async () => {
    const c = await clientFor(t);
    const answered = await c.send('POST', '/v1/workflow', { input_message: 'Lisbon' });
    const trace = answered.headers.get('observability-trace-id');
    await c.send('POST', '/feedback', { observability_trace_id: trace, reaction_type: 'thumbs_up' });
    await c.send('POST', '/feedback', { observability_trace_id: 'nope', reaction_type: 'thumbs_up' });
    await c.send('POST', '/feedback', {});
    await c.send('GET', '/feedback');
    await c.send('GET', '/feedback?limit=x');
    await c.send('PUT', '/conversations/c1', { title: 'Trip', turns: [{ question: 'Lisbon?' }] });
    await c.send('PUT', '/conversations/c1', { title: 5 });
    await c.send('PATCH', '/conversations/c1', { title: 'Trip to Lisbon' });
    for (const path of [
      '/conversations',
      '/conversations/c1',
      '/conversations/nope',
      '/conversations?limit=0',
    ]) {
      await c.send('GET', path);
    }
    await c.send('DELETE', '/conversations/c1');
    await c.send('DELETE', '/conversations/c1');
    await c.send('GET', '/conversations', undefined, { cookie: '' });
    for (const path of ['/health', '/health/ready', '/metrics', '/mcp/client/tool/list'])
      await c.send('GET', path);
    await c.send('GET', '/mcp/client/tool/list/per_user');
    expect(c.problems).toEqual([]);
  });

  it('AG-UI and A2A: capabilities and cards, refused bodies, JSON-RPC answers', async () => {
    const c = await clientFor(t);
    await c.send('GET', '/v1/ag-ui/capabilities');
    await c.send('POST', '/v1/ag-ui', {});
    await c.send('POST', '/v1/ag-ui', 'hi', { 'content-type': 'text/plain' });
    await c.send('POST', '/v1/ag-ui', {
      threadId: 't1',
      runId: 'r1',
      messages: [{ id: 'm1', role: 'user', content: 'Lisbon' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    await c.send('GET', '/.well-known/agent-card.json');
    const rpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
    await c.send('POST', '/a2a', rpc('GetTask', { id: 'nope' }), { 'a2a-version': '1.0' });
    await c.send('POST', '/a2a', rpc('Nope', {}), { 'a2a-version': '1.0' });
    await c.send('POST', '/a2a', '{not json', { 'a2a-version': '1.0' });
    expect(c.problems).toEqual([]);
  });
});

describe('the human-in-the-loop routes fit the document too', () => {
  let t: TestApp;
  const interactive = 'general:\n  front_end:\n    enable_interactive_extensions: true\n';
  beforeAll(async () => (t = await startApp(scriptedYaml(ASKING, 'Done for {{audience}}', interactive))));
  afterAll(() => t.close());

  it('paused, listed, answered wrongly and rightly, completed, cancelled, unknown', async () => {
    const c = await clientFor(t);
    const paused = (await c.send('POST', '/v1/workflow', { input_message: 'Q3' })).json();
    const statusUrl = paused.status_url as string;
    await c.send('GET', statusUrl);
    await c.send('GET', '/executions');
    await c.send('GET', '/executions?limit=abc');
    await c.send('POST', paused.response_url as string, { response: { type: 'binary_choice' } });
    await c.send('POST', paused.response_url as string, { response: { type: 'text', text: 'Ann' } });
    await c.send('POST', paused.response_url as string, { response: { type: 'text', text: 'Ann' } });
    const second = await eventually(async () => {
      const polled = (await c.send('GET', statusUrl)).json();
      expect(polled.interaction_id).not.toBe(paused.interaction_id);
      return polled;
    });
    await c.send('POST', second.response_url as string, {
      response: { type: 'binary_choice', selected_option: { id: 'yes' } },
    });
    await eventually(async () => expect((await c.send('GET', statusUrl)).json().status).toBe('completed'));
    await c.send('DELETE', statusUrl);

    const openai = (await c.send('POST', '/v1/chat/completions', chat('Q3'))).json();
    await c.send('DELETE', openai.status_url as string);
    const running = (await c.send('POST', '/v1/chat', chat('Q3'))).json();
    await c.send('DELETE', running.status_url as string);
    await c.send('GET', running.status_url as string);
    await c.send('DELETE', running.status_url as string);

    const unknown = '/executions/00000000-0000-0000-0000-000000000000';
    for (const method of ['GET', 'DELETE']) await c.send(method, unknown);
    await c.send('GET', `${unknown}/stream`);
    await c.send('POST', `${unknown}/interactions/x/response`, { response: { type: 'text', text: 'a' } });
    await c.send('POST', `${unknown}/interactions/x/response`, { answer: 1 });
    expect(c.problems).toEqual([]);
  });

  it('a job that waits for a person, and one cancelled once it ended', async () => {
    const c = await clientFor(t);
    const jobId = (await c.send('POST', '/v1/workflow/async', { input_message: 'Q3' })).json()
      .job_id as string;
    await eventually(async () => {
      const job = await c.send('GET', `/v1/workflow/async/job/${jobId}`);
      expect(job.json().status).toBe('interaction_required');
    });
    await c.send('DELETE', `/v1/workflow/async/job/${jobId}`);
    await c.send('DELETE', `/v1/workflow/async/job/${jobId}`);
    await c.send('GET', `/v1/workflow/async/job/${jobId}`);
    expect(c.problems).toEqual([]);
  });
});

describe('refusals every face can give fit the document', () => {
  it('with general.auth.require_identity, an anonymous caller gets 401 in each face’s shape', async () => {
    const t = await startApp(
      scriptedYaml(SCRIPTED, undefined, 'general:\n  auth:\n    require_identity: true\n'),
    );
    try {
      const c = await clientFor(t, {});
      for (const path of ['/v1/workflow', '/v1/workflow/stream', '/v1/chat', '/v1/chat/completions']) {
        await c.send('POST', path, chat('Lisbon'));
      }
      await c.send('POST', '/v1/responses', { input: 'Lisbon' });
      await c.send('POST', '/v1/workflow/async', { input_message: 'Lisbon' });
      await c.send('POST', '/evaluate/item', {});
      await c.send('POST', '/feedback', {});
      await c.send('POST', '/v1/ag-ui', {});
      for (const path of ['/executions', '/executions/x', '/v1/workflow/async/jobs', '/evaluate/jobs']) {
        await c.send('GET', path);
      }
      for (const path of ['/conversations', '/mcp/client/tool/list', '/v1/ag-ui/capabilities', '/metrics']) {
        await c.send('GET', path);
      }
      for (const path of ['/health', '/.well-known/agent-card.json']) await c.send('GET', path);
      await c.send('POST', '/a2a', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
      expect(c.problems).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('past max_waiting_executions, a new run that would wait gets 429', async () => {
    const t = await startApp(scriptedYaml(ASKING, 'Done', 'general:\n  max_waiting_executions: 1\n'));
    try {
      const c = await clientFor(t);
      await c.send('POST', '/v1/workflow', { input_message: 'one' });
      await eventually(async () => {
        const list = (await c.send('GET', '/executions')).json();
        expect(list.data).toHaveLength(1);
      });
      for (const path of ['/v1/workflow', '/v1/chat', '/v1/chat/completions'])
        await c.send('POST', path, chat('two'));
      expect(c.seen).toContain('POST /v1/workflow 429');
      expect(c.problems).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
