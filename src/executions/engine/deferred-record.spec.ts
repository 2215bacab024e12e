import { ANONYMOUS } from '../../core/identity/identity';
import type { WorkflowContext } from '../../runtime/workflow-context';
import { anEngine } from '../../../test/utils/builders';

const request = { method: 'POST', path: '/v1/workflow', headers: {}, query: {}, cookies: {} };

/** A run that waits until released, reading its own id first when asked to. */
function held(readId: boolean) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const seen: string[] = [];
  const run = async (_input: unknown, ctx: WorkflowContext) => {
    if (readId) seen.push(ctx.executionId);
    await released;
    return 'done';
  };
  return { run, release, seen };
}

describe('Deferred records (a request answered with its result)', () => {
  it('stores nothing while it runs and leaves nothing behind when it completes', async () => {
    const { store, executions, counts } = await anEngine('workflow: { _type: echo }');
    const { run, release } = held(false);
    const workflow = { ...executions['config'].workflow, run };
    const execution = await executions.start({}, ANONYMOUS, {
      request,
      interactive: true,
      deferRecord: true,
      workflow,
    });
    expect(store.size).toBe(0);
    release();
    expect(await execution.done).toMatchObject({ kind: 'completed', result: 'done' });
    await new Promise((r) => setImmediate(r));
    expect(store.size).toBe(0);
    expect(counts).toMatchObject({ started: 1, completed: 1 });
  });

  it('is stored as running the moment the workflow reads its id (the id may be handed out and polled)', async () => {
    const { store, executions } = await anEngine('workflow: { _type: echo }');
    const { run, release, seen } = held(true);
    const workflow = { ...executions['config'].workflow, run };
    const execution = await executions.start({}, ANONYMOUS, {
      request,
      interactive: true,
      deferRecord: true,
      workflow,
    });
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([execution.id]);
    expect(await store.get(execution.id)).toMatchObject({ id: execution.id, status: 'running' });
    release();
    await execution.done;
    await new Promise((r) => setImmediate(r));
    expect(await store.get(execution.id)).toBeUndefined();
  });

  it('is stored when it pauses for a person, and kept once its id is exposed', async () => {
    const { store, executions } = await anEngine('workflow: { _type: echo }');
    const run = (_input: unknown, ctx: WorkflowContext) => ctx.prompt({ input_type: 'text', text: 'name?' });
    const workflow = { ...executions['config'].workflow, run };
    const execution = await executions.start({}, ANONYMOUS, {
      request,
      interactive: true,
      deferRecord: true,
      workflow,
    });
    await new Promise<void>((resolve) => {
      execution.events.subscribe((e) => e.kind === 'interaction_required' && resolve());
    });
    execution.expose();
    expect(await store.get(execution.id)).toMatchObject({ status: 'interaction_required' });
    await execution.cancel('stop');
    expect(await store.get(execution.id)).toMatchObject({ status: 'failed' });
  });

  it('an exposed execution that never paused is stored, and its end kept for polls', async () => {
    const { store, executions } = await anEngine('workflow: { _type: echo }');
    const { run, release } = held(false);
    const workflow = { ...executions['config'].workflow, run };
    const execution = await executions.start({}, ANONYMOUS, {
      request,
      interactive: true,
      deferRecord: true,
      workflow,
    });
    execution.expose();
    await new Promise((r) => setImmediate(r));
    expect(await store.get(execution.id)).toMatchObject({ status: 'running' });
    release();
    await execution.done;
    await new Promise((r) => setImmediate(r));
    expect(await store.get(execution.id)).toMatchObject({ status: 'completed', result: 'done' });
  });

  it('a face that subscribes once the run has already ended still gets its end', async () => {
    const { executions } = await anEngine('workflow: { _type: echo }');
    const execution = await executions.start({ message: 'hi you' }, ANONYMOUS, {
      request,
      interactive: true,
      deferRecord: true,
    });
    await new Promise((r) => setImmediate(r));
    const seen = await new Promise((resolve) => execution.events.subscribe((e) => resolve(e)));
    expect(seen).toMatchObject({ kind: 'completed', result: 'hi you' });
  });
});
