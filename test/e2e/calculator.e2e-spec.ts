import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

/** Naive recursion: minutes of work for mathjs, unless the worker is stopped. */
const FIBONACCI_40 = 'f(n) = n < 2 ? n : f(n - 1) + f(n - 2); f(40)';
const BOMBS = [
  'config({relTol: 1, absTol: 1})',
  'x = [1,2,3,4,5,6,7,8,9,10]; y = kron(x, x); z = kron(y, y); kron(z, z)',
  'diag(1:10000)',
  'matrixFromFunction([100000, 100000], f(i) = 1)',
  'a = matrix([1:10000]); transpose(a) * a',
];

describe('the calculator as a workflow: a bad expression never reaches the server', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp('workflow:\n  _type: calculator\n  timeout_seconds: 1\n')));
  afterAll(() => t.close());

  const calculate = (expression: string) => postJson(`${t.url}/v1/workflow`, { expression });

  it('/health keeps answering while an endless expression runs, which is then stopped', async () => {
    await calculate('0'); // the worker has started: what follows runs in its time limit
    const running = calculate(FIBONACCI_40);
    let done = false;
    void running.finally(() => (done = true));
    // Were the expression run on the event loop, no /health could be answered until it was stopped: every
    // probe below is answered while it still runs (a whole second), however slow the machine; one that was
    // in flight when a blocking run ended could be counted, never three.
    let answeredWhileRunning = 0;
    while (!done) {
      expect((await fetch(`${t.url}/health`)).status).toBe(200);
      if (!done) answeredWhileRunning++;
    }
    const res = await running;
    expect(res.status).toBe(422);
    expect(res.text).toContain('took longer than 1s');
    expect(answeredWhileRunning).toBeGreaterThanOrEqual(3);
  });

  it.each(BOMBS)('refuses %s, and then still computes', async (bomb) => {
    const res = await calculate(bomb);
    expect(res.status).toBe(422);
    const after = await calculate('1 == 2');
    expect(after.status).toBe(200);
    expect(after.json.value).toBe('false');
  });
});
