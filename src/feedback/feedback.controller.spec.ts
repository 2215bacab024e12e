import { randomUUID } from 'node:crypto';
import type { Identity } from '../core/identity/identity';
import { slimApp, type SlimApp } from '../../test/utils/slim-app';
import { postJson } from '../../test/utils/sse';
import { FeedbackController } from './feedback.controller';
import {
  cursorFor,
  FeedbackService,
  type FeedbackItem,
  type FeedbackPage,
  type FeedbackPageQuery,
  type NewFeedback,
} from './feedback.service';

const aTraceId = () => randomUUID();

/** Stands in for the feedback store: records what got past the route's checks. */
class RecordingFeedback {
  readonly added: NewFeedback[] = [];

  async add(identity: Identity, feedback: NewFeedback): Promise<FeedbackItem> {
    this.added.push(feedback);
    return {
      observability_trace_id: feedback.observability_trace_id,
      reaction_type: feedback.reaction_type ?? null,
      comment: feedback.comment ?? null,
      user_id: identity.userId,
      created_at: new Date().toISOString(),
    };
  }

  async list(): Promise<FeedbackItem[]> {
    return [];
  }

  readonly pages: FeedbackPageQuery[] = [];

  async page(_identity: Identity, query: FeedbackPageQuery): Promise<FeedbackPage> {
    this.pages.push(query);
    return { items: [], next_cursor: null };
  }
}

describe('feedback requests refused before they reach the store', () => {
  let t: SlimApp;
  const feedback = new RecordingFeedback();
  beforeAll(
    async () =>
      (t = await slimApp({
        controllers: [FeedbackController],
        providers: [{ provide: FeedbackService, useValue: feedback }],
      })),
  );
  afterAll(() => t.close());

  const sendFeedback = (app: SlimApp, body: unknown) => postJson(`${app.url}/feedback`, body);
  async function listFeedback(app: SlimApp, query: string) {
    const res = await fetch(`${app.url}/feedback${query}`);
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  describe('POST /feedback', () => {
    it('without observability_trace_id it is 422, in FastAPI shape', async () => {
      const res = await sendFeedback(t, { reaction_type: '👍' });
      expect(res.status).toBe(422);
      expect(res.json).toEqual({
        detail: [
          { type: 'missing', loc: ['body', 'observability_trace_id'], msg: 'Field required', input: null },
        ],
      });
    });

    it.each([
      ['an empty trace id', 'string_too_short', { observability_trace_id: '', reaction_type: '👍' }],
      ['a trace id that is not a string', 'string_type', { observability_trace_id: 42, reaction_type: '👍' }],
      ['a reaction that is not a string', 'string_type', { observability_trace_id: 'x', reaction_type: 1 }],
    ])('%s is 422 %s', async (_name, type, body) => {
      const res = await sendFeedback(t, body);
      expect(res.status).toBe(422);
      expect((res.json.detail as { type: string }[])[0].type).toBe(type);
    });

    it.each([
      ['neither', {}],
      ['both empty', { reaction_type: '', comment: '' }],
      ['both null', { reaction_type: null, comment: null }],
      ['a blank comment', { comment: '   ' }],
    ])('with no reaction and no comment (%s) it is 422 saying what to send', async (_name, fields) => {
      const res = await sendFeedback(t, { observability_trace_id: aTraceId(), ...fields });
      expect(res.status).toBe(422);
      expect(res.json.detail).toEqual([
        expect.objectContaining({
          type: 'value_error',
          loc: ['body'],
          msg: 'Value error, Provide a reaction_type, a comment, or both',
        }),
      ]);
    });

    it('a body that is not JSON, or not an object, is 422', async () => {
      expect((await sendFeedback(t, '{"observability_trace_id": ')).status).toBe(422);
      const list = await sendFeedback(t, [{ observability_trace_id: 'x', reaction_type: '👍' }]);
      expect(list.status).toBe(422);
      expect((list.json.detail as { type: string }[])[0].type).toBe('model_attributes_type');
    });

    it('a body that passes reaches the store as sent; none of the refused ones did', async () => {
      const id = aTraceId();
      const res = await sendFeedback(t, { observability_trace_id: id, comment: 'fine' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ message: `Added comment to call ${id}` });
      expect(feedback.added).toEqual([{ observability_trace_id: id, comment: 'fine' }]);
    });
  });

  describe('GET /feedback', () => {
    it('without observability_trace_id it lists a page of the caller’s own (default 20 items)', async () => {
      const res = await listFeedback(t, '');
      expect(res).toEqual({ status: 200, json: { items: [], next_cursor: null } });
      const next = cursorFor(41);
      expect((await listFeedback(t, `?limit=100&cursor=${next}`)).status).toBe(200);
      expect(feedback.pages).toEqual([{ limit: 20 }, { limit: 100, after: 41 }]);
    });

    it('an empty observability_trace_id is 422, in FastAPI shape', async () => {
      const res = await listFeedback(t, '?observability_trace_id=');
      expect(res.status).toBe(422);
      expect((res.json.detail as { loc: string[] }[])[0].loc).toEqual(['query', 'observability_trace_id']);
    });

    it.each([
      ['a cursor for id 0', cursorFor(0)],
      ['a cursor of another shape', Buffer.from('x:12').toString('base64url')],
      ['an overlong cursor', 'A'.repeat(65)],
    ])('%s is 422', async (_name, cursor) => {
      expect((await listFeedback(t, `?cursor=${cursor}`)).status).toBe(422);
    });
  });
});
