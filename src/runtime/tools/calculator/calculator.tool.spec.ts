import { CalculatorSandbox } from './calculator-sandbox';
import { calculate, CalculatorConfig } from './calculator.tool';

const FIBONACCI_40 = 'f(n) = n < 2 ? n : f(n - 1) + f(n - 2); f(40)';

function withTimeout(seconds: number): CalculatorConfig {
  return Object.assign(new CalculatorConfig(), { timeout_seconds: seconds });
}

describe('calculator', () => {
  it.each([
    ['2 + 2', '4'],
    ['(3 + 4) * 2', '14'],
    ['sqrt(16) / 2', '2'],
    ['17 % 5', '2'],
    ['1 / 3', '0.33333333333333'],
    ['2 km to m', '2000 m'],
    ['x = 3; x * 2', '6'],
    ['sum(1:100)', '5050'],
    ['det([1, 2; 3, 4])', '-2'],
  ])('%s = %s', async (expression, value) => {
    await expect(calculate(expression)).resolves.toBe(value);
  });

  it.each([
    ['evaluate("1")', /evaluate cannot be used/],
    ['parse("1")', /parse cannot be used/],
    ['import({})', /import cannot be used/],
    ['createUnit("foo")', /createUnit cannot be used/],
    ['simplify("x")', /simplify cannot be used/],
    ['g = evaluate; g("1")', /evaluate cannot be used/],
    ['zeros(1e5, 1e5)', /zeros cannot be used/],
    ['1:1e9', /ranges are limited to 10000 elements/],
  ])('refuses %s', async (expression, problem) => {
    await expect(calculate(expression)).rejects.toThrow(problem);
  });

  it('refuses a function as a value and an expression that is too long', async () => {
    await expect(calculate('cos')).rejects.toThrow(/names a function/);
    await expect(calculate('1+'.repeat(600) + '1')).rejects.toThrow(/longer than 1000/);
  });

  it("config() is refused and cannot change the next caller's arithmetic", async () => {
    await expect(calculate('config({relTol: 1, absTol: 1})')).rejects.toThrow(/config cannot be used/);
    await expect(calculate('x = config; x({relTol: 1, absTol: 1})')).rejects.toThrow(/config cannot be used/);
    await expect(calculate('1 == 2')).resolves.toBe('false');
  });

  it.each([
    ['kron', 'x = [1,2,3,4,5,6,7,8,9,10]; y = kron(x, x); z = kron(y, y); kron(z, z)', /kron cannot be used/],
    ['diag', 'diag(1:10000)', /diag cannot be used/],
    ['matrixFromFunction', 'matrixFromFunction([100000, 100000], f(i) = 1)', /matrixFromFunction cannot/],
    ['an outer product', 'a = matrix([1:10000]); transpose(a) * a', /limited to 10000 elements|memory/],
  ])('a matrix bomb (%s) is refused and the calculator still works', async (_what, bomb, problem) => {
    // Time enough that the size and memory limits are what stop it (the time limit has its own test): on a
    // loaded machine filling the worker's heap can take longer than the default 2 s.
    await expect(calculate(bomb, withTimeout(60))).rejects.toThrow(problem);
    await expect(calculate('2 + 2')).resolves.toBe('4');
  });

  it('stops an expression that outlives its time limit, without holding the event loop', async () => {
    await calculate('0'); // the worker has started: the time limit counts from here
    // Timers of this thread fire in the order they fall due, however loaded the machine: the expression's
    // limit (0.5 s) must come after a timer due before it and before one due well after it.
    const order: string[] = [];
    const mark = (what: string) => () => order.push(what);
    const timers = [setTimeout(mark('0.4 s'), 400), setTimeout(mark('1.5 s'), 1500)];
    const stopped = calculate(FIBONACCI_40, withTimeout(0.5)).catch((err: Error) => {
      order.push('stopped');
      throw err;
    });
    try {
      await expect(stopped).rejects.toThrow(/took longer than 0.5s/);
    } finally {
      timers.forEach(clearTimeout);
    }
    // the event loop kept turning while the worker was busy, and the limit was neither early nor late
    expect(order).toEqual(['0.4 s', 'stopped']);
    await expect(calculate('3 * 3')).resolves.toBe('9');
  });
});

describe('calculator sandbox', () => {
  it('a worker that runs out of memory is replaced, and says so', async () => {
    const sandbox = new CalculatorSandbox({ memoryMb: 64, maxQueue: 4 });
    try {
      const hog = 'a = matrix([1:10000]); b = transpose(a) * a; size(b)';
      // a time limit far past what filling the heap takes, even on a loaded machine: memory must stop it
      await expect(sandbox.evaluate(hog, 60_000)).rejects.toThrow(/memory|limited to 10000/);
      await expect(sandbox.evaluate('1 + 1', 10_000)).resolves.toBe('2');
    } finally {
      await sandbox.close();
    }
  });

  it('refuses at once past its queue', async () => {
    const sandbox = new CalculatorSandbox({ memoryMb: 128, maxQueue: 1 });
    try {
      await sandbox.evaluate('0', 10_000); // the worker has started
      const running = sandbox.evaluate(FIBONACCI_40, 300);
      const waiting = sandbox.evaluate('1', 300);
      await expect(sandbox.evaluate('1', 300)).rejects.toThrow(/busy/);
      await expect(running).rejects.toThrow(/took longer/);
      await expect(waiting).resolves.toBe('1');
    } finally {
      await sandbox.close();
    }
  });
});
