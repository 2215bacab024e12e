import { Redis } from 'ioredis';
import { Executions } from '../utils/hitl';
import type { InteractionEvent } from '../utils/hitl-stream';
import { openStream } from '../utils/live-sse';
import { startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { postJson } from '../utils/sse';
import { eventually, scriptedYaml } from '../utils/test-app';
import { userMessage, WsClient } from '../utils/ws-client';

const BOUND = 16 * 1024;

/** The input goes into a step, the streamed text and the result, as the demo workflow does with it. */
const WORKFLOW = scriptedYaml(
  `- step: { name: search, kind: tool, input: { query: '{{input}}' }, payload: { ok: true } }
- stream: { text: 'You asked {{input}}. ' }
- prompt: { input_type: text, text: 'Go on?', save_as: go }
- stream: { text: 'lorem ipsum dolor sit amet ', repeat: 1000 }
- prompt: { input_type: text, text: 'Name?', save_as: name }
- stream: { text: 'bye {{name}}' }`,
  'Plan for {{input}} and {{name}}',
  `  max_event_log_bytes_per_execution: ${BOUND}`,
);

/** The bytes Redis holds for an execution's log (MEMORY USAGE of its keys). */
async function redisBytes(replicas: Replicas, prefix: string, id: string): Promise<number> {
  const redis = new Redis(replicas.services.redisUrl, { lazyConnect: true });
  try {
    let bytes = 0;
    for (const key of await redis.keys(`${prefix}events:{${id}}*`)) {
      bytes += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    }
    return bytes;
  } finally {
    redis.disconnect();
  }
}

/** Two replicas whose event logs are bounded to 16 KiB each: what the shared store keeps, and who is told. */
requires('postgres')('Bounded event logs across replicas', () => {
  requires('redis')('with the shared store', () => {
    let replicas: Replicas;
    let a: string;
    let b: string;
    let prefix: string;
    beforeAll(async () => {
      replicas = await startReplicas(2, WORKFLOW);
      [a, b] = replicas.apps.map((app) => app.url);
      // startReplicas took the first prefix of its services for both replicas.
      prefix = `${replicas.services.rootPrefix}1:`;
    });
    afterAll(() => replicas.close());

    const bob = { cookie: 'nat-session=bob' };

    /** The caller's execution waiting on `text`, as the inbox lists it. */
    async function waitingOn(url: string, headers: Record<string, string>, text: string) {
      return eventually(async () => {
        const res = await fetch(`${url}/executions`, { headers });
        const [waiting] = ((await res.json()) as { data: Record<string, unknown>[] }).data;
        expect(waiting).toMatchObject({ prompt: { text } });
        return waiting as { execution_id: string; response_url: string };
      }, 10_000);
    }

    it('a large input quoted by events: Redis holds about the bound; a client re-attaching on B after the long text is told what it missed and gets the whole result', async () => {
      const input = 'q'.repeat(200 * 1024);
      const onA = await openStream(`${a}/v1/workflow/stream`, { body: { input_message: input } });
      const first = await onA.next((f) => f.event === 'interaction_required', 10_000);
      const go = JSON.parse(first.data!) as InteractionEvent;
      const id = go.execution_id;
      // The step and the text carry 400 KB between them; the log keeps about its bound.
      expect(await redisBytes(replicas, prefix, id)).toBeLessThan(2 * BOUND);
      expect((await new Executions(a).answer(go.response_url, { type: 'text', text: 'y' })).status).toBe(204);
      onA.destroy();
      const { response_url } = await new Executions(a).nextPause(id, go.interaction_id, 10_000);

      // Back after the long text, on B, from the last frame it had.
      const late = await openStream(`${b}/executions/${id}/stream`, {
        headers: { 'Last-Event-ID': String(first.id) },
      });
      const dropped = await late.next((f) => f.event === 'events_dropped');
      const notice = JSON.parse(dropped.data!) as { count: number; message: string };
      expect(notice.count).toBeGreaterThan(500);
      expect(notice.message).toBe(`${notice.count} earlier events are no longer available`);
      await late.next((f) => f.event === 'interaction_required' && f.data!.includes('Name?'));
      expect((await new Executions(b).answer(response_url, { type: 'text', text: 'Ann' })).status).toBe(204);
      await late.end(10_000);
      // After the prompt: the text streamed (B follows merged runs of it), then the final output, too
      // large for the log, told as dropped (the poll below has the whole result).
      const afterPrompt = late.frames.slice(late.frames.findIndex((f) => f.data?.includes('Name?')) + 1);
      const values = afterPrompt
        .filter((f) => f.event === undefined && f.data)
        .map((f) => JSON.parse(f.data!).value);
      expect(values.join('')).toBe('bye Ann');
      expect(afterPrompt.find((f) => f.event === 'events_dropped')?.data).toContain('"count":1');
      expect(late.text.length).toBeLessThan(60_000);

      const polled = await new Executions(b).ended(id);
      expect(polled.status).toBe('completed');
      expect(polled.result).toEqual({ value: `Plan for ${input} and Ann` });
      expect(await redisBytes(replicas, prefix, id)).toBeLessThan(2 * BOUND);
    });

    it('a WebSocket conversation away during the long text, back on B, is told that earlier events are gone', async () => {
      const onA = await WsClient.connect(a, { session: 'bob' });
      onA.send(userMessage('x', { id: 'u-long', conversation_id: 'conv-long' }));
      await onA.until((m) => m.type === 'system_interaction_message');
      onA.close();
      await onA.closed;
      const go = await waitingOn(b, bob, 'Go on?');
      expect(
        (await postJson(`${b}${go.response_url}`, { response: { type: 'text', text: 'y' } }, bob)).status,
      ).toBe(204);
      await waitingOn(b, bob, 'Name?');

      const onB = await WsClient.connect(b, { session: 'bob', conversation_id: 'conv-long' });
      const notice = await onB.next(10_000);
      expect(notice).toMatchObject({
        type: 'system_intermediate_message',
        content: { name: 'Earlier events no longer available' },
      });
      const count = /^(\d+) earlier events are no longer available$/.exec(
        String((notice.content as { payload: string }).payload),
      );
      expect(Number(count?.[1])).toBeGreaterThan(500);
      onB.close();
      await onB.closed;
    });
  });
});
