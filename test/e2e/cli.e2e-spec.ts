import { ConfigError, loadConfig } from '../../src/config/config.loader';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { config, fixture, cli, freePort, serve, stopServersAfterEach } from '../utils/cli';

// `npm test` builds first; run `npm run build` before `npx jest --selectProjects e2e`.
jest.setTimeout(30_000);
stopServersAfterEach();

describe('interlude validate', () => {
  it.each(['echo.yml', 'echo-openai.yml', 'default.yml'])(
    'accepts config/%s: prints valid, exits 0',
    async (name) => {
      const res = await cli(['validate', '--config', config(name)]);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(`${config(name)}: components`);
      expect(lines.slice(1, -1).every((l) => l.startsWith('  supported '))).toBe(true);
      expect(lines.at(-1)).toMatch(
        new RegExp(`^${config(name).replace(/[.]/g, '\\.')}: valid \\(workflow: \\w+\\)$`),
      );
    },
  );

  it('prints every problem of a broken file to stderr and exits 2', async () => {
    const file = fixture('broken.yml');
    const res = await cli(['validate', '--config', file]);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain(
      '  not supported            functions.helper (no_such_type): a NeMo Agent Toolkit',
    );
    expect(res.stdout).toContain('  invalid                  workflow (scripted): see the errors below');
    expect(res.stdout).not.toContain('valid (workflow');
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`Invalid config ${file}:`);
    expect(lines.slice(1)).toEqual(
      expect.arrayContaining([
        `  ${file}:4: general.front_end._type: _type must be one of: http, fastapi`,
        `  ${file}:5: general.front_end.prot: Extra inputs are not permitted`,
        `  ${file}:7: general.front_end.workflow.path: must be an absolute URL path such as /v1/workflow`,
        `  ${file}:10: functions.helper._type: unknown _type "no_such_type"; known types: ask_confirmation, ask_question, calculator, chat_completion, code_generation, current_datetime, current_request_attributes, current_timezone, echo, http_request, parallel_executor, per_user_counter, per_user_react_agent, react_agent, reasoning_agent, responses_api_agent, rewoo_agent, router_agent, scripted, sequential_executor, tool_calling_agent, wiki_search`,
        `  ${file}:16: workflow.steps[1].sleep.seconds: Input should be greater than or equal to 0`,
        `  ${file}:17: workflow.steps[2].stream.text: Input should be a valid string`,
      ]),
    );
    expect(lines).toHaveLength(7);
  });

  it('prints the same errors the server reports at start-up', async () => {
    const file = fixture('broken.yml');
    let expected = '';
    try {
      loadConfig(file, builtinRegistry(), {});
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      expected = `${err.message}\n`;
    }
    expect(expected).not.toBe('');
    expect((await cli(['validate', '--config', file])).stderr).toBe(expected);
  });

  it('reports per component what serve does with a NeMo Agent Toolkit config, exiting 0 when it starts', async () => {
    const res = await cli(['validate', '--config', fixture('nat-example.yml')]);
    expect(res.code).toBe(0);
    const file = fixture('nat-example.yml');
    expect(res.stdout.split('\n')).toEqual([
      `${file}: components`,
      '  accepted with a warning  llms.nim_llm (nim): see the warnings on api_key, thinking',
      '  supported                function_groups.calculator (calculator)',
      '  accepted with a warning  workflow (react_agent): see the warnings on log_response_max_chars',
      '  not supported            eval.evaluators.rag_accuracy (ragas): a NAT Python evaluator; the served eval section is not used (start-up goes on)',
      "  accepted with a warning  embedders.nv-embedqa (nim): NAT's Python retrievers and memory use embedders; nothing here does",
      `${file}: valid (workflow: react_agent)`,
      '',
    ]);
    expect(res.stderr).toContain(`warning: ${file}:8: workflow.log_response_max_chars: ignored:`);
    expect(res.stderr).toContain('NVIDIA_API_KEY is not set and has no default');
  });

  it('takes variables from the environment', async () => {
    const res = await cli(['validate', '--config', fixture('broken.yml')], { WORKFLOW_DESCRIPTION: 'set' });
    expect(res.code).toBe(2);
    expect(res.stderr).not.toContain('WORKFLOW_DESCRIPTION');
    expect(res.stderr).toContain('workflow.steps[2].stream.text');
  });

  it('reports a missing file and exits 2', async () => {
    const file = fixture('does-not-exist.yml');
    const res = await cli(['validate', '--config', file]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}: (root): cannot read the file`);
  });

  it('requires --config', async () => {
    const res = await cli(['validate']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('--config');
  });
});

describe("a NeMo Agent Toolkit user's command line", () => {
  it('validate --config_file loads a NAT config, with one warning line per ignored field', async () => {
    const file = fixture('nat-config.yml');
    const res = await cli(['validate', '--config_file', file]);
    expect(res.code).toBe(0);
    expect(res.stdout.trimEnd().split('\n').at(-1)).toBe(`${file}: valid (workflow: echo)`);
    expect(res.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^warning: ${file}:3: general\\.use_uvloop: ignored: `)),
      expect.stringMatching(
        /^warning: \S+:7: general\.telemetry\.tracing\.phoenix: ignored: tracing exporter "phoenix"/,
      ),
      expect.stringMatching(/^warning: \S+:13: general\.front_end\.reload: ignored: /),
      expect.stringMatching(/^warning: \S+:12: general\.front_end\.workers: ignored: /),
      expect.stringMatching(/^warning: \S+:16: general\.front_end\.dask_workers: ignored: /),
    ]);
  });

  it('--override KEY VALUE sets a dotted path, the value typed as a YAML scalar; repeatable', async () => {
    const ok = await cli([
      'validate',
      '--config',
      config('echo.yml'),
      '--override',
      'general.front_end.port',
      '9001',
      '--override',
      'general.front_end.cors.allow_credentials',
      'true',
    ]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const typed = await cli([
      'validate',
      '--config',
      config('echo.yml'),
      '--override',
      'general.front_end.port',
      'high',
    ]);
    expect(typed.code).toBe(2);
    expect(typed.stderr).toContain('general.front_end.port: ');
    const unknown = await cli([
      'validate',
      '--config',
      config('echo.yml'),
      '--override',
      'general.front_end.prot',
      '1',
    ]);
    expect(unknown.stderr).toContain('general.front_end.prot: Extra inputs are not permitted');
  });

  it('--override needs a KEY and a VALUE', async () => {
    const res = await cli([
      'validate',
      '--config',
      config('echo.yml'),
      '--override',
      'general.front_end.port',
    ]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('--override');
  });

  it('serve reads NAT_CONFIG_FILE like INTERLUDE_CONFIG, and takes overrides', async () => {
    const port = await freePort();
    const { line, url } = await serve(
      [
        '--override',
        'general.front_end.host',
        '127.0.0.1',
        '--override',
        'general.front_end.port',
        String(port),
      ],
      { NAT_CONFIG_FILE: config('echo.yml') },
    );
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(line).toContain(config('echo.yml'));
  });
});

describe('interlude run', () => {
  it('runs the echo workflow once and prints its output', async () => {
    const res = await cli(['run', '--config', config('echo.yml'), '--input', '  hello  there, world ']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('  hello  there, world \n');
  });

  it('prints the text of an OpenAI-style result', async () => {
    const res = await cli(['run', '--config', config('echo-openai.yml'), '--input', 'hi there']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('hi there\n');
  });

  it('runs the default scripted workflow and prints its rendered output', async () => {
    const res = await cli(['run', '--config', config('default.yml'), '--input', 'a weekend away']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('Plan for "a weekend away": Lisbon for three days, then Porto.\n');
  });

  it('exits non-zero with the message when the workflow fails', async () => {
    const res = await cli(['run', '--config', fixture('failing.yml'), '--input', 'flights to Porto']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe('Workflow failed: upstream search timed out for "flights to Porto"\n');
  });

  it('refuses an invalid config with exit code 2 before running anything', async () => {
    const res = await cli(['run', '--config', fixture('broken.yml'), '--input', 'x']);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('workflow.steps[2].stream.text');
  });

  it('requires --input', async () => {
    const res = await cli(['run', '--config', config('echo.yml')]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('--input');
  });
});
