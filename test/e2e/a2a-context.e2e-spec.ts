import { randomUUID } from 'node:crypto';
import { a2aClient, aSend, asTask, aUserMessage, texts } from '../utils/a2a-client';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { reply, type FakeLlm } from '../utils/fake-llm';
import type { TestApp } from '../utils/test-app';

describe('A2A: messages in one context continue its conversation', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent', tool_names: [] }),
    (model, app) => {
      llm = model;
      t = app;
    },
  );
  /** What the model was sent on its n-th request, as `role: content` lines (the system prompt left out). */
  const chatOf = (n: number) =>
    llm.requests[n].body.messages.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${m.content}`);

  it('a new task in the context gets the earlier tasks’ messages and answers as history', async () => {
    const client = await a2aClient(t.url, { cookie: 'nat-session=alice' });
    llm.script(reply.text('Hello Ada'), reply.text('You are Ada'));
    const first = asTask(await client.sendMessage(aSend(aUserMessage('My name is Ada'))));
    expect(texts(first.artifacts[0].parts).join('')).toBe('Hello Ada');

    const second = asTask(
      await client.sendMessage(aSend(aUserMessage('What is my name?', { contextId: first.contextId }))),
    );
    expect(second.id).not.toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect(chatOf(1)).toEqual(['user: My name is Ada', 'assistant: Hello Ada', 'user: What is my name?']);
  });

  it('another context, or another identity’s same context id, starts afresh', async () => {
    const alice = await a2aClient(t.url, { cookie: 'nat-session=alice' });
    const bob = await a2aClient(t.url, { cookie: 'nat-session=bob' });
    const contextId = randomUUID();
    llm.script(reply.text('Noted'), reply.text('I do not know'), reply.text('Who?'));
    await alice.sendMessage(aSend(aUserMessage('The code is 42', { contextId })));
    await bob.sendMessage(aSend(aUserMessage('What is the code?', { contextId })));
    await alice.sendMessage(aSend(aUserMessage('What is the code?', { contextId: randomUUID() })));
    expect(chatOf(1)).toEqual(['user: What is the code?']);
    expect(chatOf(2)).toEqual(['user: What is the code?']);
  });

  it('an anonymous caller’s own context id keeps no history: another anonymous caller naming it sees nothing', async () => {
    const first = await a2aClient(t.url);
    const second = await a2aClient(t.url);
    llm.script(reply.text('Noted'), reply.text('I do not know'), reply.text('Still no'));
    await first.sendMessage(aSend(aUserMessage('The code is 42', { contextId: 'ctx-anon' })));
    await second.sendMessage(aSend(aUserMessage('What is the code?', { contextId: 'ctx-anon' })));
    await first.sendMessage(aSend(aUserMessage('And now?', { contextId: 'ctx-anon' })));
    expect(chatOf(1)).toEqual(['user: What is the code?']);
    expect(chatOf(2)).toEqual(['user: And now?']);
  });

  it('an anonymous caller continues the context the server issued it, by that id', async () => {
    const client = await a2aClient(t.url);
    llm.script(reply.text('Hello Ada'), reply.text('You are Ada'), reply.text('Ada, still'));
    const first = asTask(await client.sendMessage(aSend(aUserMessage('My name is Ada'))));
    await client.sendMessage(aSend(aUserMessage('What is my name?', { contextId: first.contextId })));
    await client.sendMessage(aSend(aUserMessage('And again?', { contextId: first.contextId })));
    expect(chatOf(1)).toEqual(['user: My name is Ada', 'assistant: Hello Ada', 'user: What is my name?']);
    expect(chatOf(2).slice(-3)).toEqual([
      'user: What is my name?',
      'assistant: You are Ada',
      'user: And again?',
    ]);
  });
});
