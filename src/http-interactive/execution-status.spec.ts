import type { ExecutionEvent } from '../runtime/execution-event';
import { SseWriter } from '../core/http/sse-writer';
import { pausedBody, writeInteractiveEvent } from '../http-responders/execution-stream';
import { statusBody } from './execution-status';
import type { ExecutionRecord } from '../executions/model/execution-record';
import { ExecutionUrls } from '../http-responders/execution-urls';

const urls = new ExecutionUrls('');
const oauthEvent: ExecutionEvent = {
  kind: 'oauth_required',
  authUrl: 'https://id.example.com/authorize?state=s1',
  state: 's1',
  provider: 'github',
  seq: 4,
};

function record(patch: Partial<ExecutionRecord>): ExecutionRecord {
  return {
    id: 'E',
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    ownerId: null,
    workflow: 'scripted',
    status: 'running',
    interactive: true,
    createdAt: 0,
    updatedAt: 0,
    interactions: {},
    ...patch,
  };
}

describe('execution bodies for OAuth waits', () => {
  it('a 202 for an OAuth wait carries auth_url and oauth_state', () => {
    expect(pausedBody('E', oauthEvent, urls)).toEqual({
      execution_id: 'E',
      status_url: '/executions/E',
      status: 'oauth_required',
      auth_url: 'https://id.example.com/authorize?state=s1',
      oauth_state: 's1',
    });
  });

  it('a status poll of an OAuth wait carries auth_url and oauth_state', () => {
    const oauth = { authUrl: 'https://id.example.com/authorize', state: 's1', provider: 'github' };
    expect(statusBody(record({ status: 'oauth_required', oauth }), urls)).toEqual({
      execution_id: 'E',
      status: 'oauth_required',
      auth_url: 'https://id.example.com/authorize',
      oauth_state: 's1',
    });
  });

  it('the stream frame is event: oauth_required with event_type, execution_id, auth_url, oauth_state', () => {
    const written: string[] = [];
    const res = {
      once: () => undefined,
      write: (chunk: string) => written.push(chunk),
      socket: null,
    } as unknown as ConstructorParameters<typeof SseWriter>[0];
    const writer = new SseWriter(res, 15_000);
    writer.eventId = 4;
    expect(writeInteractiveEvent(writer, oauthEvent, 'E', urls)).toBe(true);
    expect(written.join('')).toBe(
      'id: 4\nevent: oauth_required\ndata: {"event_type":"oauth_required","execution_id":"E",' +
        '"auth_url":"https://id.example.com/authorize?state=s1","oauth_state":"s1"}\n\n',
    );
  });

  it('URLs live under root_path', () => {
    const prefixed = new ExecutionUrls('/agents');
    expect(prefixed.response('E', 'I')).toBe('/agents/executions/E/interactions/I/response');
    expect(prefixed.stream('E')).toBe('/agents/executions/E/stream');
  });
});
