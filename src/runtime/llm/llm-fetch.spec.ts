import { AnswerTooLarge, guardedFetch } from './llm-fetch';

const answering = (res: () => Response) => guardedFetch(async () => res(), 10);

describe('guardedFetch: how the SDK reaches an LLM endpoint', () => {
  it('passes an answer within the limit through, status and headers kept', async () => {
    const res = await answering(() => new Response('0123456789', { status: 201, headers: { 'x-a': '1' } }))(
      'http://llm',
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('x-a')).toBe('1');
    expect(await res.text()).toBe('0123456789');
  });

  it('fails reading an answer past the limit, as it streams', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(6));
        controller.enqueue(new Uint8Array(6));
        controller.close();
      },
    });
    const res = await answering(() => new Response(body))('http://llm');
    await expect(res.arrayBuffer()).rejects.toBeInstanceOf(AnswerTooLarge);
  });

  it.each([
    [{ 'retry-after': '999999' }, false],
    [{ 'retry-after-ms': '99999999' }, false],
    [{ 'retry-after': '-3' }, false],
    [{ 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() }, false],
    [{ 'retry-after': '5' }, true],
    [{ 'retry-after-ms': '250' }, true],
    [{ 'retry-after': '60' }, true],
  ])('keeps a retry wait only when it is reasonable: %j', async (headers, kept) => {
    const res = await answering(() => new Response('{}', { status: 429, headers }))('http://llm');
    const [name, value] = Object.entries(headers)[0];
    expect(res.headers.get(name)).toBe(kept ? value : null);
  });
});
