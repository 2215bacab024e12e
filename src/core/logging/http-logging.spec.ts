import { checkedLogLevel, levelOfNestLevels } from './http-logging';

describe('log levels', () => {
  it("maps Nest's logger option to the most verbose pino level it names", () => {
    expect(levelOfNestLevels(false)).toBe('silent');
    expect(levelOfNestLevels([])).toBe('silent');
    expect(levelOfNestLevels(['error', 'warn'])).toBe('warn');
    expect(levelOfNestLevels(['error', 'warn', 'log'])).toBe('info');
    expect(levelOfNestLevels(['verbose', 'fatal'])).toBe('trace');
  });

  it('accepts pino level names only', () => {
    expect(checkedLogLevel('debug')).toBe('debug');
    expect(() => checkedLogLevel('verbose')).toThrow('Unknown log level "verbose"');
  });
});
