import { Logger } from '@nestjs/common';
import { whileStoreAway } from './while-store-away';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('whileStoreAway', () => {
  const logger = new Logger('test');
  beforeEach(() => {
    jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    jest.spyOn(logger, 'log').mockImplementation(() => undefined);
  });

  it('retries while the store is unreachable, and returns what the write returned once it is back', async () => {
    let calls = 0;
    const write = async () => {
      if (++calls < 3) throw refused();
      return 'ended';
    };
    await expect(whileStoreAway('job j', write, logger)).resolves.toBe('ended');
    expect(calls).toBe(3);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.log).toHaveBeenCalledWith(expect.stringMatching(/^job j: written after 3 tries/));
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    const write = async () => {
      calls++;
      throw new Error('duplicate key');
    };
    await expect(whileStoreAway('job j', write, logger)).rejects.toThrow('duplicate key');
    expect(calls).toBe(1);
  });

  it('gives up with the outage once its limit is passed', async () => {
    let calls = 0;
    const write = async () => {
      calls++;
      throw refused();
    };
    await expect(whileStoreAway('job j', write, logger, { limitMs: 400 })).rejects.toThrow('ECONNREFUSED');
    expect(calls).toBe(2);
  });

  it('stops retrying once the server stops', async () => {
    let calls = 0;
    const write = async () => {
      calls++;
      throw refused();
    };
    await expect(whileStoreAway('job j', write, logger, { stopped: () => true })).resolves.toBeUndefined();
    expect(calls).toBe(1);
  });
});
