import { ANONYMOUS } from '../core/identity/identity';
import { ServerConfig } from '../config/server-config';
import { parseConfig } from '../config/config.loader';
import { builtinRegistry } from '../runtime/builtin-functions';
import { ExecutionService } from './execution.service';
import { MemoryExecutionStore } from './memory-execution.store';
import { MemoryEventLogs } from './execution-event-log';
import { MemoryPendingOAuthFlows } from '../oauth/pending-oauth-flows';
import { WorkflowInstances } from './workflow-instances';
import { OAuthService } from '../oauth/oauth.service';
import { InProcessInteractionBroker } from '../interactions/interaction.broker';
import { InteractionService } from '../interactions/interaction.service';
import type { WorkflowContext } from '../runtime/workflow-context';
import { eventually } from '../../test/utils/test-app';

const request = { method: 'POST', path: '/v1/workflow', headers: {}, query: {}, cookies: {} };

function service(yaml: string) {
  const config = new ServerConfig(parseConfig(yaml, 'test.yml', builtinRegistry()));
  const store = new MemoryExecutionStore();
  const interactions = new InteractionService(new InProcessInteractionBroker());
  return {
    store,
    executions: new ExecutionService(
      store,
      new MemoryEventLogs({ maxBytes: Number.POSITIVE_INFINITY }),
      interactions,
      new WorkflowInstances(config),
      new OAuthService(config, new MemoryPendingOAuthFlows()),
      config,
    ),
  };
}

const SLOW = `
general: { execution_ttl_seconds: 60 }
workflow:
  _type: scripted
  steps:
    - sleep: { seconds: 0.05 }
    - stream: { text: 'a b' }
  output: 'done {{input}}'
`;

describe('ExecutionService', () => {
  it('records a running execution, then completes it with the result and events in order', async () => {
    const { store, executions } = service(SLOW);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: true,
    });
    execution.expose();
    expect((await store.get(execution.id))?.status).toBe('running');
    const end = await execution.done;
    expect(end).toMatchObject({ kind: 'completed', result: 'done x' });
    const kinds: string[] = [];
    execution.events.subscribe((e) => kinds.push(e.kind));
    expect(kinds).toEqual(['output', 'output', 'output', 'completed']);
    await new Promise((r) => setImmediate(r));
    const record = await store.get(execution.id);
    expect(record).toMatchObject({ status: 'completed', result: 'done x' });
    expect(record?.expiresAt).toBeGreaterThan(Date.now() + 50_000);
  });

  it('drops the record of an execution whose id no client was given', async () => {
    const { store, executions } = service(SLOW);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: false,
    });
    await execution.done;
    await new Promise((r) => setImmediate(r));
    expect(await store.get(execution.id)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('a failing workflow reaches failed with its message and error type', async () => {
    const { store, executions } = service(`
workflow:
  _type: scripted
  steps: [ { fail: { message: boom, error_type: KeyError } } ]
`);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: true,
    });
    execution.expose();
    expect(await execution.done).toMatchObject({
      kind: 'failed',
      error: { message: 'boom', type: 'KeyError' },
    });
    await new Promise((r) => setImmediate(r));
    expect(await store.get(execution.id)).toMatchObject({
      status: 'failed',
      error: { message: 'boom', type: 'KeyError' },
    });
  });

  it('cancel aborts the workflow through its signal and ends as cancelled', async () => {
    const { executions } = service(`
workflow:
  _type: scripted
  steps: [ { sleep: { seconds: 30 } } ]
`);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: false,
    });
    execution.cancel('user pressed stop');
    expect(await execution.done).toMatchObject({ kind: 'cancelled', reason: 'user pressed stop' });
  });

  it('a prompt on a route that is not interactive fails the workflow with a message naming the routes to use', async () => {
    const { executions } = service('workflow: { _type: echo }');
    const workflow = {
      ...executions['config'].workflow,
      run: (_input: unknown, ctx: WorkflowContext) => ctx.prompt({ input_type: 'text', text: 'name?' }),
    };
    const execution = await executions.start({}, ANONYMOUS, {
      request: { ...request, path: '/generate' },
      interactive: false,
      interactiveRoute: '/v1/workflow',
      workflow,
    });
    const end = await execution.done;
    expect(end.kind).toBe('failed');
    expect(end.kind === 'failed' && end.error.message).toBe(
      'This workflow tried to ask a person (ctx.prompt), but /generate is not an interactive route. Use the interactive route /v1/workflow instead.',
    );
  });

  it('shutdown cancels what is still running', async () => {
    const { executions } = service(`
workflow:
  _type: scripted
  steps: [ { sleep: { seconds: 30 } } ]
`);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: false,
    });
    executions.onApplicationShutdown();
    expect(await execution.done).toMatchObject({ kind: 'cancelled', reason: 'server shutting down' });
  });

  it('a cancel while the workflow waits for an OAuth authorization leaves the record failed', async () => {
    const { store, executions } = service(`
authentication:
  calendar:
    _type: oauth2_auth_code_flow
    client_id: c
    authorization_url: http://127.0.0.1:9/authorize
    token_url: http://127.0.0.1:9/token
workflow:
  _type: scripted
  steps: [ { authenticate: { provider: calendar } } ]
`);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: true,
    });
    execution.expose();
    await eventually(async () => expect((await store.get(execution.id))?.status).toBe('oauth_required'));
    await executions.cancel(ANONYMOUS, execution.id);
    await execution.done;
    await eventually(async () => expect((await store.get(execution.id))?.oauth).toBeUndefined());
    expect(await store.get(execution.id)).toMatchObject({ status: 'failed' });
  });
});
