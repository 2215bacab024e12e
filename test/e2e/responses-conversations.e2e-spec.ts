import OpenAI from 'openai';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

/** An SDK client speaking as the identity its key names (asserted identity, as NAT's server has it). */
function sdkAs(t: TestApp, key: string): OpenAI {
  return new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0 });
}

describe('stored responses: retrieve, input items, delete, store: false', () => {
  let t: TestApp;
  let alice: OpenAI;
  let bob: OpenAI;
  beforeAll(async () => {
    t = await startApp(ECHO_YAML);
    alice = sdkAs(t, 'nvapi-alice');
    bob = sdkAs(t, 'nvapi-bob');
  });
  afterAll(() => t.close());

  it('a response is stored by default: retrieve gives the same object', async () => {
    const created = await alice.responses.create({ model: 'm', input: 'keep me', metadata: { k: 'v' } });
    const retrieved = await alice.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({
      id: created.id,
      status: 'completed',
      model: 'm',
      metadata: { k: 'v' },
      output: created.output,
      usage: created.usage,
      store: true,
    });
    expect(retrieved.output_text).toBe('keep me');
  });

  it('a streamed response is retrievable, completed, as soon as its response.completed is read', async () => {
    const stream = await alice.responses.create({ model: 'm', input: 'streamed', stream: true });
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type !== 'response.completed') continue;
      // The stream is still open: its end comes after this event.
      const retrieved = await alice.responses.retrieve(event.response.id);
      expect(retrieved).toMatchObject({ status: 'completed', output: event.response.output });
      expect(retrieved.output_text).toBe('streamed');
    }
    expect(seen.at(0)).toBe('response.created');
    expect(seen.at(-1)).toBe('response.completed');
  });

  it('input_items lists the input items, newest first, a page at a time', async () => {
    const created = await alice.responses.create({
      model: 'm',
      input: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'second' },
        { role: 'user', content: [{ type: 'input_text', text: 'third' }] },
      ],
    });
    const texts = (items: OpenAI.Responses.ResponseItem[]) =>
      items.map((i) => (i.type === 'message' ? (i.content[0] as { text: string }).text : i.type));
    const page = await alice.responses.inputItems.list(created.id);
    expect(texts(page.data)).toEqual(['third', 'second', 'first']);
    expect(page.data.every((i) => typeof i.id === 'string' && i.id.startsWith('msg_'))).toBe(true);
    const all: OpenAI.Responses.ResponseItem[] = [];
    for await (const item of alice.responses.inputItems.list(created.id, { order: 'asc', limit: 2 }))
      all.push(item);
    expect(texts(all)).toEqual(['first', 'second', 'third']);
  });

  it('delete removes it: retrieve is then 404', async () => {
    const created = await alice.responses.create({ model: 'm', input: 'short-lived' });
    const deleted = (await alice.responses.delete(created.id)) as unknown;
    expect(deleted).toEqual({ id: created.id, object: 'response.deleted', deleted: true });
    await expect(alice.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('store: false is answered but never retrievable', async () => {
    const created = await alice.responses.create({ model: 'm', input: 'forget me', store: false });
    expect(created).toMatchObject({ status: 'completed', store: false, output_text: 'forget me' });
    await expect(alice.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      alice.responses.create({ model: 'm', input: 'next', previous_response_id: created.id }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("another identity gets 404 on every route for someone's response, as for an unknown id", async () => {
    const created = await alice.responses.create({ model: 'm', input: 'private' });
    const notFound = { status: 404, error: { type: 'invalid_request_error' } };
    await expect(bob.responses.retrieve(created.id)).rejects.toMatchObject(notFound);
    await expect(bob.responses.inputItems.list(created.id)).rejects.toMatchObject(notFound);
    await expect(bob.responses.delete(created.id)).rejects.toMatchObject(notFound);
    await expect(bob.responses.cancel(created.id)).rejects.toMatchObject(notFound);
    await expect(
      bob.responses.create({ model: 'm', input: 'mine now?', previous_response_id: created.id }),
    ).rejects.toMatchObject(notFound);
    await expect(bob.responses.retrieve('resp_unknown')).rejects.toMatchObject(notFound);
    expect((await alice.responses.retrieve(created.id)).output_text).toBe('private');
  });
});

describe('previous_response_id continues a conversation', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (llm) => agentYaml(llm, { _type: 'tool_calling_agent', tool_names: [] }),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it("the earlier input and output reach the workflow as chat history; instructions are the new response's own", async () => {
    const sdk = sdkAs(t, 'nvapi-carol');
    llm.script(reply.text('Hello Ada.'), reply.text('Your name is Ada.'));
    const first = await sdk.responses.create({
      model: 'm',
      input: 'I am Ada.',
      instructions: 'Greet warmly.',
    });
    const second = await sdk.responses.create({
      model: 'm',
      input: 'What is my name?',
      instructions: 'Answer briefly.',
      previous_response_id: first.id,
    });
    expect(second).toMatchObject({ previous_response_id: first.id, output_text: 'Your name is Ada.' });
    const sent = llm.requests[1].body.messages.map((m) => ({ role: m.role, content: m.content }));
    const system = sent.filter((m) => m.role === 'system').map((m) => String(m.content));
    expect(system.some((c) => c.includes('Answer briefly.'))).toBe(true);
    expect(system.some((c) => c.includes('Greet warmly.'))).toBe(false);
    expect(sent.filter((m) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });
});
