import { FakeLlm, reply, type ModelRequest } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
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

describe("the calculator tool: one caller's flood does not delay another caller's expression", () => {
  let llm: FakeLlm;
  let t: TestApp;
  /** The model calls the calculator with the user's text, then answers with what the tool said. */
  const answerFromTheTool = (request: ModelRequest) => {
    const last = request.body.messages.at(-1)!;
    if (last.role === 'tool') return reply.text(`tool said: ${last.content}`);
    return reply.tools([{ name: 'calculator', arguments: { expression: last.content } }]);
  };
  /** The agent's answer (what the tool told the model), or the status of a run that failed. */
  const ask = async (who: string, expression: string) => {
    const res = await postJson(
      `${t.url}/v1/workflow`,
      { input_message: expression },
      { cookie: `nat-session=${who}` },
    );
    return res.status === 200 ? String(res.json.value) : `status ${res.status}`;
  };

  beforeAll(async () => {
    llm = await FakeLlm.start();
    llm.respondWith(answerFromTheTool);
    t = await startApp(
      agentYaml(
        llm,
        { _type: 'tool_calling_agent', tool_names: ['calculator'] },
        // Long enough that the whole flood arrives while its first expression runs.
        { calculator: { _type: 'calculator', timeout_seconds: 6 } },
      ),
    );
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('the flood is told the calculator is busy past one running and one waiting; 2+2 is answered meanwhile', async () => {
    // Both workers loaded first: the test compares turns, not start-up times.
    expect(await Promise.all([ask('warm-1', '1+1'), ask('warm-2', '1+2')])).toEqual([
      'tool said: 2',
      'tool said: 3',
    ]);
    const ended: string[] = [];
    const flood = Array.from({ length: 6 }, async () => {
      const answer = await ask('mallory', FIBONACCI_40);
      ended.push(/busy/.test(answer) ? 'flood busy' : 'flood ran');
      return answer;
    });
    expect(await ask('alice', '2+2')).toBe('tool said: 4');
    ended.push('alice');
    const answers = await Promise.all(flood);
    expect(answers.filter((a) => /The calculator is busy; try again shortly/.test(a))).toHaveLength(4);
    expect(answers.filter((a) => /took longer than 6s/.test(a))).toHaveLength(2);
    // Alice did not wait behind mallory's queue: her answer came before the expression mallory had
    // waiting was even started (it starts when mallory's first one is stopped, and runs its full time).
    expect(ended.indexOf('alice')).toBeLessThan(ended.lastIndexOf('flood ran'));
  });
});
