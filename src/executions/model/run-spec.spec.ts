import { startingRecord } from './execution-record';
import { specWith, storedSpec, type RunSpec } from './run-spec';

describe('run spec kept beside its record', () => {
  const identity = { userId: 'u1', source: 'header', claims: { sub: 'u1' } } as never;
  const request = {
    method: 'POST',
    path: '/v1/workflow',
    headers: { 'content-type': 'application/json' },
    query: {},
    cookies: {},
    clientAddress: '10.0.0.7',
  };
  const face = { name: 'generate', options: { errors: 'event' } };
  const spec: RunSpec = {
    workflow: 'scripted',
    input: { input_message: 'x' },
    identity,
    request,
    face,
    interactive: true,
    streaming: false,
    interactiveRoute: '/v1/workflow',
    trace: { traceId: 'abc' },
  };
  const record = startingRecord('e1', 'abc', identity, 'scripted', { request, face, interactive: true });

  it('leaves out what the record holds, and reads it back whole', () => {
    const stored = storedSpec(spec, record);
    const json = JSON.stringify(stored);
    for (const left of [
      '"workflow"',
      '"face"',
      '"interactive"',
      '"trace"',
      '10.0.0.7',
      '"query"',
      '"cookies"',
    ])
      expect(json).not.toContain(left);
    expect(specWith(JSON.parse(json), record)).toEqual(spec);
  });

  it('keeps what differs from the record, and what is not empty', () => {
    const other: RunSpec = {
      ...spec,
      face: undefined,
      interactiveRoute: undefined,
      trace: { traceId: 'abc', conversationId: 'c1' },
      request: { ...request, query: { a: '1' }, cookies: { k: 'v' }, clientAddress: undefined },
    };
    const stored = JSON.parse(JSON.stringify(storedSpec(other, record)));
    expect(specWith(stored, record)).toEqual(JSON.parse(JSON.stringify(other)));
  });

  it('a spec kept whole (written before, or of another workflow) reads the same', () => {
    expect(specWith(JSON.parse(JSON.stringify(spec)), record)).toEqual(spec);
    const other = { ...spec, workflow: 'react_agent', interactiveRoute: undefined };
    const stored = JSON.parse(JSON.stringify(storedSpec(other, record)));
    expect(stored.workflow).toBe('react_agent');
    expect(specWith(stored, record)).toEqual(other);
  });
});
