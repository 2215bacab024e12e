import { pickAdapter } from './adapters';

describe('pickAdapter', () => {
  it('builds the adapter the configured driver names', () => {
    expect(pickAdapter('general.executions.store', 'memory', { memory: () => 'm', redis: () => 'r' })).toBe(
      'm',
    );
  });

  it('names the config path and the known drivers when the driver has no adapter', () => {
    expect(() => pickAdapter('general.executions.store', 'redis', { memory: () => 'm' })).toThrow(
      'general.executions.store: no adapter for "redis" (known: memory)',
    );
  });

  it('does not take inherited names for drivers', () => {
    expect(() => pickAdapter('x', 'toString', { memory: () => 'm' })).toThrow('no adapter for "toString"');
  });
});
