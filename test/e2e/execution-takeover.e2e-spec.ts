import { Executions, call, type Pause } from '../utils/hitl';
import { valuesOf } from '../utils/hitl-stream';
import { openStream, type Frame } from '../utils/live-sse';
import { crash, startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml } from '../utils/test-app';

const LEASE_SECONDS = 2;
/** The lease, a scan, the replay and its sleep, with room for a slow CI. */
const TAKEOVER_MS = LEASE_SECONDS * 1000 + 2500 + 2000 + 3000;

/** After the answer (the last journal point) it streams and runs a step, then sleeps: a replica dies there. */
const WORKFLOW = scriptedYaml(
  `- prompt: { input_type: text, text: 'Your name?', timeout: 60, save_as: name }
- stream: { text: 'thanks {{name}}' }
- step: { name: lookup, kind: tool, input: { who: '{{name}}' }, payload: { ok: true } }
- sleep: { seconds: 2 }`,
  'hello {{name}}',
);

/** The type of the intermediate step a frame carries (undefined: none). */
const stepOf = (f: Frame) =>
  f.fields.intermediate_data && (JSON.parse(f.fields.intermediate_data) as { type: string }).type;

/** The whole log of an execution as a client re-attaching from the start reads it (on `url`). */
async function wholeLog(url: string, id: string) {
  const whole = await openStream(`${url}/executions/${id}/stream`, { headers: { 'Last-Event-ID': '0' } });
  await whole.end();
  return whole;
}

requires('postgres')('A takeover', () => {
  requires('redis')('with the shared store', () => {
    let replicas: Replicas;
    beforeEach(async () => {
      replicas = await startReplicas(2, WORKFLOW, { leaseSeconds: LEASE_SECONDS });
    });
    afterEach(() => replicas.close());

    it('of a run that died after publishing past its last journal point: each event is in the log once', async () => {
      const [a, b] = replicas.apps;
      const started = await call('POST', `${a.url}/v1/workflow`, { input_message: 'x' });
      expect(started.status).toBe(202);
      const pause = started.json as unknown as Pause;
      const id = pause.execution_id;
      const answered = await new Executions(a.url).answer(pause.response_url, { type: 'text', text: 'Ada' });
      expect(answered.status).toBe(204);
      // In the sleep: the text and the step were published after the answer was journaled.
      await eventually(async () => {
        const seen = await openStream(`${a.url}/executions/${id}/stream`, {
          headers: { 'Last-Event-ID': '0' },
        });
        await seen.next((f) => stepOf(f) === 'TOOL_END', 1000);
        seen.destroy();
      });
      crash(a);

      expect(await new Executions(b.url).ended(id, TAKEOVER_MS)).toMatchObject({
        status: 'completed',
        result: { value: 'hello Ada' },
      });
      const whole = await wholeLog(b.url, id);
      expect(valuesOf(whole)).toEqual(['thanks ', 'Ada', 'hello Ada']);
      expect(whole.frames.map(stepOf).filter(Boolean)).toEqual(['TOOL_START', 'TOOL_END']);
    });
  });
});
