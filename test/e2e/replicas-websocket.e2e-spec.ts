import { startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml } from '../utils/test-app';
import { reply, userMessage, WsClient, type WsMessage } from '../utils/ws-client';

const WORKFLOW = scriptedYaml(
  `- stream: { text: 'before ' }
- prompt: { input_type: text, text: 'Still there?', timeout: 30, save_as: answer }
- stream: { text: 'after {{answer}}' }`,
  ' ok {{input}}',
);

/** Two servers sharing one Postgres and one Redis: a WebSocket conversation moved to another replica. */
requires('postgres')('WebSocket across replicas', () => {
  requires('redis')('with the shared store', () => {
    let replicas: Replicas;
    let a: string;
    let b: string;
    beforeAll(async () => {
      replicas = await startReplicas(2, WORKFLOW);
      [a, b] = replicas.apps.map((app) => app.url);
    });
    afterAll(() => replicas.close());

    /** Starts a run on A in `conversation` and leaves it waiting on its prompt, socket closed. */
    async function waitingOnA(session: string, conversation: string): Promise<WsMessage> {
      const first = await WsClient.connect(a, { session });
      first.send(userMessage('x', { id: `u-${conversation}`, conversation_id: conversation }));
      const [, asked] = await first.until((m) => m.type === 'system_interaction_message');
      expect(asked.content).toMatchObject({ text: 'Still there?', timeout: 30 });
      first.close();
      await first.closed;
      return asked;
    }

    it('reconnected to B, the user gets the pending prompt with the time left, answers it there and gets the rest', async () => {
      const asked = await waitingOnA('alice', 'conv-ab');
      let again!: WsClient;
      let resent!: WsMessage;
      // Until at least a second of the prompt's time has gone, so what is left is less than 30.
      await eventually(
        async () => {
          again = await WsClient.connect(b, { session: 'alice', conversation_id: 'conv-ab' });
          resent = await again.next();
          if ((resent.content.timeout as number) >= 30) {
            again.close();
            await again.closed;
          }
          expect(resent.content.timeout).toBeLessThan(30);
        },
        5000,
        200,
      );
      try {
        expect(resent).toMatchObject({
          type: 'system_interaction_message',
          id: asked.id,
          parent_id: 'u-conv-ab',
          conversation_id: 'conv-ab',
          content: { ...asked.content, timeout: expect.any(Number) },
        });
        expect(resent.content.timeout).toBeGreaterThanOrEqual(25);
        again.send(reply('yes', { conversation_id: 'conv-ab' }));
        const rest = await again.run();
        const texts = rest.filter((m) => m.status === 'in_progress').map((m) => m.content.text);
        // Nothing from before the prompt is sent again: the first connection was shown it.
        expect(texts.join('')).toBe('after yes ok x');
        expect(rest.at(-2)).toMatchObject({ type: 'system_response_message', status: 'complete' });
        expect(rest.at(-1)).toMatchObject({ type: 'observability_trace_message' });
      } finally {
        again.close();
      }
    });

    it('another user reconnecting to B with the same conversation_id is shown nothing and cannot answer', async () => {
      await waitingOnA('carol', 'conv-x');
      const mallory = await WsClient.connect(b, { session: 'mallory', conversation_id: 'conv-x' });
      try {
        for (let i = 0; i < 2; i++) {
          mallory.send(reply('I am Carol', { conversation_id: 'conv-x' }));
          expect(await mallory.next()).toMatchObject({
            type: 'error_message',
            content: { code: 'invalid_data_content' },
          });
        }
      } finally {
        mallory.close();
      }
      // Carol still can, on B.
      const carol = await WsClient.connect(b, { session: 'carol', conversation_id: 'conv-x' });
      try {
        expect(await carol.next()).toMatchObject({ type: 'system_interaction_message' });
        carol.send(reply('me', { conversation_id: 'conv-x' }));
        const texts = (await carol.run()).filter((m) => m.status === 'in_progress');
        expect(texts.map((m) => m.content.text).join('')).toBe('after me ok x');
      } finally {
        carol.close();
      }
    });

    it('taken over on B, then back on A: A shows the prompt again and the answer there completes the run', async () => {
      await waitingOnA('dan', 'conv-aba');
      const onB = await WsClient.connect(b, { session: 'dan', conversation_id: 'conv-aba' });
      expect(await onB.next()).toMatchObject({ type: 'system_interaction_message' });
      onB.close();
      await onB.closed;
      const onA = await WsClient.connect(a, { session: 'dan', conversation_id: 'conv-aba' });
      try {
        expect(await onA.next()).toMatchObject({ type: 'system_interaction_message' });
        onA.send(reply('back', { conversation_id: 'conv-aba' }));
        const texts = (await onA.run()).filter((m) => m.status === 'in_progress');
        expect(texts.map((m) => m.content.text).join('')).toBe('after back ok x');
      } finally {
        onA.close();
      }
    });

    describe('with a short execution TTL', () => {
      let short: Replicas;
      beforeAll(async () => {
        short = await startReplicas(2, `  execution_ttl_seconds: 1\n${WORKFLOW}`);
      });
      afterAll(() => short.close());

      it('a run taken over on B is not cancelled by A when the TTL since its socket closed on A passes', async () => {
        const [sa, sb] = short.apps.map((app) => app.url);
        const first = await WsClient.connect(sa, { session: 'erin' });
        first.send(userMessage('x', { id: 'u-ttl', conversation_id: 'conv-ttl' }));
        await first.until((m) => m.type === 'system_interaction_message');
        first.close();
        await first.closed;
        const onB = await WsClient.connect(sb, { session: 'erin', conversation_id: 'conv-ttl' });
        try {
          expect(await onB.next()).toMatchObject({ type: 'system_interaction_message' });
          // Past A's abandon timer (1 s after the close): the run still waits, and B's answer completes it.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          onB.send(reply('still here', { conversation_id: 'conv-ttl' }));
          const texts = (await onB.run()).filter((m) => m.status === 'in_progress');
          expect(texts.map((m) => m.content.text).join('')).toBe('after still here ok x');
        } finally {
          onB.close();
        }
      });
    });
  });
});
