import dns from 'node:dns';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { aFolder, outputsIn } from '../utils/eval-runner';
import { FakeLlm, reply } from '../utils/fake-llm';
import { ALICE, jobsAt } from '../utils/jobs-client';
import { eventually, startApp, type TestApp } from '../utils/test-app';

/** A server on a private address: whatever reaches it is recorded, and it answers as a model would. */
interface PrivateServer {
  url: string;
  port: number;
  hits: { url: string; authorization?: string }[];
  close(): Promise<void>;
}

const VERDICT = {
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: '{"score": 1, "reasoning": "PRIVATE"}' },
      finish_reason: 'stop',
    },
  ],
};

async function aServerAt(host: string, answer?: (res: import('node:http').ServerResponse) => void) {
  const hits: PrivateServer['hits'] = [];
  const server: Server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', authorization: (req.headers as IncomingHttpHeaders).authorization });
    if (answer) return answer(res);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(VERDICT));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const DATASET = JSON.stringify([{ id: 'q1', question: 'Capital of France?', answer: 'Paris' }]);
const EVAL = { general: { dataset: { _type: 'json', file_path: 'dataset.json' } } };

/**
 * `POST /evaluate` names files of general.evaluation.config_dir, which are not the operator's config:
 * every model, step and tool such a file declares reaches only what the served general.outbound allows
 * (127.0.0.1 here), checked on the address connected to; the private server at 127.0.0.3 must receive
 * nothing.
 */
describe('POST /evaluate: what an evaluation file makes the server contact passes the served general.outbound', () => {
  let t: TestApp;
  let llm: FakeLlm;
  let privateServer: PrivateServer;
  let configDir: string;
  let output: string;
  let n = 0;

  beforeAll(async () => {
    llm = await FakeLlm.start();
    privateServer = await aServerAt('127.0.0.3');
    configDir = aFolder('interlude-eval-config-');
    output = aFolder('interlude-eval-out-');
    t = await startApp(
      stringify({
        general: { outbound: { allow_hosts: ['127.0.0.1'] }, evaluation: { config_dir: configDir } },
        workflow: { _type: 'echo' },
        eval: { general: { output_dir: output } },
      }),
    );
  });
  afterAll(async () => {
    await t?.close();
    await llm.close();
    await privateServer.close();
  });
  afterEach(() => {
    llm.reset();
    privateServer.hits.length = 0;
  });

  /** Submits `evaluation` (beside the dataset) as alice and waits for the job to end. */
  async function evaluate(evaluation: Record<string, unknown>) {
    const dir = mkdtempSync(join(configDir, 'case-'));
    writeFileSync(join(dir, 'dataset.json'), DATASET);
    writeFileSync(join(dir, 'eval.yml'), stringify(evaluation));
    const jobId = `job-${++n}`;
    const jobs = jobsAt(t.url, '', ALICE);
    const submitted = await jobs.post('/evaluate', { config_file: join(dir, 'eval.yml'), job_id: jobId });
    expect(submitted.status).toBe(202);
    const job = await eventually(async () => {
      const res = await jobs.get(`/evaluate/job/${jobId}`);
      expect(['success', 'failure']).toContain(res.body.status);
      return res.body;
    }, 20_000);
    const outputs = job.status === 'success' ? outputsIn(join(output, String(job.output_path))) : {};
    return { job, outputs };
  }
  const judgeItem = (outputs: Record<string, unknown>) =>
    (outputs['judge_output.json'] as { eval_output_items: { score: unknown; error?: string }[] })
      .eval_output_items[0];

  it('a judge answering with a redirect to a private address scores nothing; that address receives nothing', async () => {
    const redirector = await aServerAt('127.0.0.1', (res) => {
      res.writeHead(307, { location: `${privateServer.url}/v1/chat/completions` });
      res.end();
    });
    try {
      const { job, outputs } = await evaluate({
        llms: { judge: { _type: 'openai', base_url: `${redirector.url}/v1`, model_name: 'm', api_key: 'k' } },
        eval: { ...EVAL, evaluators: { judge: { _type: 'llm_judge', llm_name: 'judge' } } },
      });
      expect(job.status).toBe('success');
      expect(redirector.hits.length).toBeGreaterThan(0);
      expect(privateServer.hits).toEqual([]);
      expect(judgeItem(outputs)).toMatchObject({ score: null });
      expect(judgeItem(outputs).error).toContain('redirects are not followed');
    } finally {
      await redirector.close();
    }
  });

  it('a judge whose name resolves to a public address when checked and a private one after is refused where it connects', async () => {
    // A rebinding name server: the first answer is public, every later one private.
    const NAME = 'judge.rebinding.test';
    let asked = 0;
    const answer = () => (asked++ === 0 ? '1.1.1.1' : '127.0.0.3');
    const lookup = dns.lookup;
    const promisesLookup = dns.promises.lookup;
    const patched = ((host: string, options: unknown, callback: unknown) => {
      const cb = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      const opts = (typeof options === 'object' && options) || {};
      if (host !== NAME) return (lookup as (...args: unknown[]) => void)(host, opts, cb);
      const address = answer();
      if ((opts as { all?: boolean }).all) return process.nextTick(cb, null, [{ address, family: 4 }]);
      process.nextTick(cb, null, address, 4);
    }) as typeof dns.lookup;
    dns.lookup = patched;
    dns.promises.lookup = (async (host: string, options?: { all?: boolean }) => {
      if (host !== NAME) return promisesLookup(host, options ?? {});
      const address = answer();
      return options?.all ? [{ address, family: 4 }] : { address, family: 4 };
    }) as typeof dns.promises.lookup;
    try {
      const { job, outputs } = await evaluate({
        llms: {
          judge: {
            _type: 'openai',
            base_url: `http://${NAME}:${privateServer.port}/v1`,
            model_name: 'm',
            api_key: 'k',
            max_retries: 0,
            timeout_seconds: 2,
          },
        },
        eval: { ...EVAL, evaluators: { judge: { _type: 'llm_judge', llm_name: 'judge' } } },
      });
      expect(job.status).toBe('success');
      expect(judgeItem(outputs)).toMatchObject({ score: null });
      expect(privateServer.hits).toEqual([]);
    } finally {
      dns.lookup = lookup;
      dns.promises.lookup = promisesLookup;
    }
  });

  it("an evaluation file's own general.outbound is refused, naming the setting; its fetch step reaches nothing", async () => {
    const { job } = await evaluate({
      general: { outbound: { allow_hosts: ['0.0.0.0/0'] } },
      workflow: {
        _type: 'scripted',
        steps: [{ fetch: { url: `${privateServer.url}/meta`, save_as: 'r' } }],
        output: 'got {{r.choices}}',
      },
      eval: { ...EVAL, evaluators: { exact: { _type: 'exact_match' } } },
    });
    expect(job.status).toBe('failure');
    expect(job.error).toContain('general.outbound');
    expect(job.error).toContain("the served config's general.outbound applies");
    expect(privateServer.hits).toEqual([]);
  });

  it("the models of an evaluation file's workflow pass general.outbound, like its judge", async () => {
    const { job, outputs } = await evaluate({
      llms: { m: { _type: 'openai', base_url: `${privateServer.url}/v1`, model_name: 'm', api_key: 'k' } },
      workflow: { _type: 'chat_completion', llm_name: 'm' },
      eval: { ...EVAL, evaluators: { exact: { _type: 'exact_match' } } },
    });
    expect(job.status).toBe('success');
    expect(privateServer.hits).toEqual([]);
    const [item] = outputs['workflow_output.json'] as { generated_answer: string }[];
    expect(item.generated_answer).not.toContain('PRIVATE');

    // The same workflow with its model where the served policy allows: it answers.
    llm.script(reply.text('Paris'));
    const allowed = await evaluate({
      llms: { m: { _type: 'openai', base_url: llm.url, model_name: 'm', api_key: 'k' } },
      workflow: { _type: 'chat_completion', llm_name: 'm' },
      eval: { ...EVAL, evaluators: { exact: { _type: 'exact_match' } } },
    });
    expect(allowed.job).toMatchObject({ status: 'success', output: { averages: { exact: 1 } } });
  });

  it('${VAR} in an evaluation file is refused, naming the placeholder: the server environment reaches no one', async () => {
    process.env.INTERLUDE_EVAL_SECRET = 'server-only-secret';
    try {
      const { job } = await evaluate({
        llms: {
          m: { _type: 'openai', base_url: llm.url, model_name: 'm', api_key: 'sk-${INTERLUDE_EVAL_SECRET}' },
        },
        workflow: { _type: 'chat_completion', llm_name: 'm' },
        eval: { ...EVAL, evaluators: { exact: { _type: 'exact_match' } } },
      });
      expect(job.status).toBe('failure');
      expect(job.error).toContain('${INTERLUDE_EVAL_SECRET}');
      expect(job.error).toContain("not expanded from the server's environment");
      expect(JSON.stringify(job)).not.toContain('server-only-secret');
      expect(llm.requests).toEqual([]);
    } finally {
      delete process.env.INTERLUDE_EVAL_SECRET;
    }
  });

  it("a judge an evaluation file declares without api_key gets no key from the server's environment", async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-server-only';
    try {
      llm.script(reply.text('{"score": 1, "reasoning": "ok"}'));
      const { job } = await evaluate({
        llms: { judge: { _type: 'openai', base_url: llm.url, model_name: 'm' } },
        eval: { ...EVAL, evaluators: { judge: { _type: 'llm_judge', llm_name: 'judge' } } },
      });
      expect(job).toMatchObject({ status: 'success', output: { averages: { judge: 1 } } });
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0].headers.authorization).not.toContain('sk-server-only');
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it('an evaluation file cannot start a process on the server (an MCP server over stdio)', async () => {
    const marker = join(aFolder('interlude-eval-marker-'), 'ran');
    llm.script(reply.text('Paris'));
    const { job } = await evaluate({
      llms: { m: { _type: 'openai', base_url: llm.url, model_name: 'm', api_key: 'k' } },
      function_groups: {
        tools: {
          _type: 'mcp_client',
          server: {
            transport: 'stdio',
            command: process.execPath,
            args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`],
          },
        },
      },
      workflow: { _type: 'tool_calling_agent', llm_name: 'm', tool_names: ['tools'] },
      eval: { ...EVAL, evaluators: { exact: { _type: 'exact_match' } } },
    });
    expect(job.status).toBe('failure');
    expect(job.error).toContain('function_groups.tools.server.transport');
    expect(existsSync(marker)).toBe(false);
  });
});
