import { AppError, ErrorCode } from '../../core/errors/app-error';
import { ANONYMOUS, type Identity } from '../../core/identity/identity';
import type { WorkflowContext } from '../../runtime/workflow-context';
import type { ExecutionService } from './execution.service';
import { anEngine, anIdentity } from '../../../test/utils/builders';
import { eventually } from '../../../test/utils/test-app';

const request = { method: 'POST', path: '/v1/workflow', headers: {}, query: {}, cookies: {} };

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
    const { store, executions } = await anEngine(SLOW);
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
    const { store, executions } = await anEngine(SLOW);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: false,
    });
    await execution.done;
    await new Promise((r) => setImmediate(r));
    expect(await store.get(execution.id)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps a finished execution whose id a client holds until its record expires, then forgets both', async () => {
    const { store, executions } = await anEngine(SLOW);
    const execution = await executions.start({ input_message: 'x' }, ANONYMOUS, {
      request,
      interactive: true,
    });
    execution.expose();
    await execution.done;
    await eventually(async () => expect((await store.get(execution.id))?.status).toBe('completed'));
    expect(executions.find(execution.id)).toBe(execution);
    expect(executions.isExposed(execution.id)).toBe(true);
    await executions.sweep(Date.now() + 59_000);
    expect(executions.find(execution.id)).toBe(execution);
    await executions.sweep(Date.now() + 61_000);
    expect(executions.find(execution.id)).toBeUndefined();
    expect(executions.isExposed(execution.id)).toBe(false);
    expect(await store.get(execution.id)).toBeUndefined();
  });

  it('a failing workflow reaches failed with its message and error type', async () => {
    const { store, executions } = await anEngine(`
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
    const { executions } = await anEngine(`
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
    const { executions } = await anEngine('workflow: { _type: echo }');
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
    const { executions } = await anEngine(`
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
    const { store, executions } = await anEngine(`
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

describe('ExecutionService.respond: a person answers what a workflow asks', () => {
  const ALICE = anIdentity('alice');
  const BOB = anIdentity('bob');
  const NOBODY = anIdentity(null);
  const engines: ExecutionService[] = [];
  // A test that fails leaves its workflow waiting: cancel it, so no prompt timer outlives the test.
  afterEach(() => engines.splice(0).forEach((executions) => executions.onApplicationShutdown()));

  /** An execution of `owner` whose workflow asks one text question and returns the answer it gets. */
  async function waitingOn(owner: Identity = NOBODY) {
    const { store, config, executions } = await anEngine('workflow: { _type: echo }');
    engines.push(executions);
    const workflow = {
      ...config.workflow,
      run: (_input: unknown, ctx: WorkflowContext) => ctx.prompt({ input_type: 'text', text: 'name?' }),
    };
    const execution = await executions.start({}, owner, { request, interactive: true, workflow });
    execution.expose();
    const interactionId = await eventually(async () => {
      const record = await store.get(execution.id);
      expect(record?.status).toBe('interaction_required');
      return record!.openInteractionId!;
    });
    const answered = execution.done.then((end) => (end.kind === 'completed' ? end.result : end));
    const statusOf = async () => (await store.get(execution.id))!.interactions[interactionId].status;
    return { executions, id: execution.id, interactionId, answered, statusOf };
  }

  /** The error a promise rejects with (fails the test when it fulfils). */
  async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
    try {
      await promise;
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      return err as AppError;
    }
    throw new Error('expected a rejection');
  }

  const text = (t: string) => ({ type: 'text', text: t });

  it('the workflow gets the first answer; a second gets "already resolved"', async () => {
    const ask = await waitingOn();
    await ask.executions.respond(NOBODY, ask.id, ask.interactionId, text('first'));
    const second = await rejectionOf(
      ask.executions.respond(NOBODY, ask.id, ask.interactionId, text('second')),
    );
    expect(second.code).toBe(ErrorCode.AlreadyResolved);
    expect(second.message).toBe(`Interaction ${ask.interactionId} has already been resolved`);
    expect(await ask.answered).toEqual({ type: 'text', text: 'first' });
    expect(await ask.statusOf()).toBe('resolved');
  });

  it('of 10 answers sent at the same moment exactly one is accepted, and it is the one the workflow gets', async () => {
    const ask = await waitingOn();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        ask.executions.respond(NOBODY, ask.id, ask.interactionId, text(`n${i}`)),
      ),
    );
    const accepted = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(accepted).toHaveLength(1);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(refused).toHaveLength(9);
    for (const reason of refused) {
      expect(reason).toBeInstanceOf(AppError);
      expect((reason as AppError).code).toBe(ErrorCode.AlreadyResolved);
    }
    expect(await ask.answered).toEqual({ type: 'text', text: `n${accepted[0]}` });
  });

  it("another user (or an anonymous caller) gets 404 for an execution, the owner's answer goes through", async () => {
    const ask = await waitingOn(ALICE);
    for (const stranger of [BOB, NOBODY]) {
      const err = await rejectionOf(
        ask.executions.respond(stranger, ask.id, ask.interactionId, text('mine')),
      );
      expect(err.code).toBe(ErrorCode.NotFound);
      expect(err.message).toBe(`Execution ${ask.id} not found`);
    }
    expect(await ask.statusOf()).toBe('open');
    await ask.executions.respond(ALICE, ask.id, ask.interactionId, text('Alice'));
    expect(await ask.answered).toEqual({ type: 'text', text: 'Alice' });
  });

  it('an anonymous execution is answered by whoever holds its id', async () => {
    const ask = await waitingOn();
    await ask.executions.respond(BOB, ask.id, ask.interactionId, text('Bob'));
    expect(await ask.answered).toEqual({ type: 'text', text: 'Bob' });
  });

  it('404 for an unknown execution, and for an unknown interaction of a known one', async () => {
    const ask = await waitingOn();
    const unknown = await rejectionOf(ask.executions.respond(NOBODY, 'nope', ask.interactionId, text('x')));
    expect(unknown.code).toBe(ErrorCode.NotFound);
    expect(unknown.message).toBe('Execution nope not found');
    const wrong = await rejectionOf(ask.executions.respond(NOBODY, ask.id, 'i9', text('x')));
    expect(wrong.code).toBe(ErrorCode.NotFound);
    expect(wrong.message).toBe(`Interaction i9 not found for execution ${ask.id}`);
    expect(await ask.statusOf()).toBe('open');
    await ask.executions.respond(NOBODY, ask.id, ask.interactionId, text('done'));
    expect(await ask.answered).toEqual({ type: 'text', text: 'done' });
  });
});
