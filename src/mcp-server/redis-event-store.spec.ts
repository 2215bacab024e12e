import { parseEventId } from './redis-event-store';

describe('parseEventId (a Last-Event-ID a client sends)', () => {
  const stream = '0b7f3c1e-5a2d-4c8e-9f10-2a3b4c5d6e7f';

  it('names a call stream or the standalone stream, and a Redis Stream entry', () => {
    expect(parseEventId(`${stream}_1764255000000-3`)).toEqual({ streamId: stream, entry: '1764255000000-3' });
    expect(parseEventId('_GET_stream_17-0')).toEqual({ streamId: '_GET_stream', entry: '17-0' });
  });

  it('refuses anything that could name another key or another range', () => {
    for (const forged of [
      '',
      '17-0',
      `${stream}_`,
      `${stream}_17`,
      `${stream}_-`,
      `${stream}_+`,
      `${stream}_(17-0`,
      `${stream}:other_17-0`,
      `other-session:${stream}_17-0`,
      `*_17-0`,
      `${stream.toUpperCase()}_17-0`,
      `_GET_stream_17-0 `,
    ]) {
      expect(parseEventId(forged)).toBeUndefined();
    }
  });
});
