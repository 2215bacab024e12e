import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinRegistry } from '../runtime/builtin-functions';
import { ConfigError, loadConfig, parseConfig, type AppConfig, type ConfigProblemAt } from './config.loader';

const ECHO = 'workflow:\n  _type: echo\n';

function parse(yaml: string, env: NodeJS.ProcessEnv = {}): AppConfig {
  return parseConfig(yaml, 'app.yml', builtinRegistry(), env);
}

/** The ConfigError a config raises (fails the test if it loads). */
function errorOf(yaml: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parse(yaml, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected the config to be rejected');
}

function problemAt(err: ConfigError, path: string): ConfigProblemAt {
  const found = err.problems.find((p) => p.path === path);
  if (!found) {
    throw new Error(
      `no problem at ${path}; found:\n${err.problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`,
    );
  }
  return found;
}

describe('config defaults', () => {
  it('fills in NeMo Agent Toolkit defaults for everything but the workflow', () => {
    const { settings } = parse(ECHO);
    const frontEnd = settings.general.front_end;
    expect(frontEnd).toMatchObject({
      _type: 'http',
      host: 'localhost',
      port: 8000,
      root_path: '',
      disable_legacy_routes: false,
      enable_interactive_extensions: false,
      oauth2_callback_path: '/auth/redirect',
      max_body_bytes: 10 * 1024 * 1024,
    });
    expect(frontEnd.workflow).toMatchObject({
      path: '/v1/workflow',
      openai_api_path: '/v1/chat',
      openai_api_v1_path: '/v1/chat/completions',
      legacy_path: '/generate',
      legacy_openai_api_path: '/chat',
    });
    expect(frontEnd.cors.allow_origins).toEqual([]);
    expect(settings.general.enable_per_user_monitoring).toBe(false);
    expect(settings.llms).toEqual({});
    expect(settings.functions).toEqual({});
    expect(settings.authentication).toEqual({});
  });

  it('keeps defaults for the fields a partial section leaves out', () => {
    const { settings } = parse(`
general:
  front_end:
    port: 9000
    workflow:
      path: /run
${ECHO}`);
    expect(settings.general.front_end.port).toBe(9000);
    expect(settings.general.front_end.host).toBe('localhost');
    expect(settings.general.front_end.workflow.path).toBe('/run');
    expect(settings.general.front_end.workflow.legacy_path).toBe('/generate');
  });
});

describe('the NeMo Agent Toolkit layout', () => {
  const FULL = `
general:
  use_uvloop: true
  enable_per_user_monitoring: true
  front_end:
    _type: fastapi
    host: 0.0.0.0
    port: 8080
    root_path: /api
    workflow:
      method: POST
      path: /v2/run
      websocket_path: /ws
      openai_api_path: /v2/chat
      openai_api_v1_path: /v2/chat/completions
      legacy_path: /gen
      legacy_openai_api_path: /legacy-chat
      description: My workflow
    disable_legacy_routes: true
    enable_interactive_extensions: true
    oauth2_callback_path: /oauth/callback
    cors:
      allow_origins: ['https://example.com']
      allow_origin_regex: 'https://.*\\.example\\.com'
      allow_methods: [GET, POST]
      allow_headers: ['*']
      allow_credentials: true
      expose_headers: [x-trace]
      max_age: 60
    max_body_bytes: 2048
llms:
  nim_llm:
    _type: nim
    model_name: meta/llama-3.1-70b-instruct
    temperature: 0.0
functions:
  repeat:
    _type: echo
    description: repeats things
  plan:
    _type: scripted
    steps:
      - stream: { text: 'planning {{input}}' }
authentication:
  github:
    _type: oauth2_auth_code_flow
    client_id: abc
workflow:
  _type: scripted
  description: A demo
  steps:
    - step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: [a, b] }
    - stream: { text: 'Hello {{input}}', chunk_words: 2 }
  output: 'Done: {{input}}'
`;

  it('loads every section as written', () => {
    const config = parse(FULL);
    const { general } = config.settings;
    expect(general.enable_per_user_monitoring).toBe(true);
    expect(general.front_end).toMatchObject({
      _type: 'fastapi',
      host: '0.0.0.0',
      port: 8080,
      root_path: '/api',
      disable_legacy_routes: true,
      enable_interactive_extensions: true,
      oauth2_callback_path: '/oauth/callback',
      max_body_bytes: 2048,
    });
    expect(general.front_end.workflow).toMatchObject({
      path: '/v2/run',
      websocket_path: '/ws',
      openai_api_path: '/v2/chat',
      openai_api_v1_path: '/v2/chat/completions',
      legacy_path: '/gen',
      legacy_openai_api_path: '/legacy-chat',
    });
    expect(general.front_end.cors).toMatchObject({
      allow_origins: ['https://example.com'],
      allow_origin_regex: 'https://.*\\.example\\.com',
      allow_credentials: true,
      max_age: 60,
    });
    expect(config.settings.llms.nim_llm).toMatchObject({ _type: 'nim', temperature: 0 });
    expect(config.settings.authentication.github).toMatchObject({ _type: 'oauth2_auth_code_flow' });
  });

  it('builds the workflow and every named function', () => {
    const config = parse(FULL);
    expect(config.file).toBe('app.yml');
    expect(config.workflow.type).toBe('scripted');
    expect(config.workflow.description).toBe('A demo');
    expect([...config.functions.keys()].sort()).toEqual(['plan', 'repeat']);
    expect(config.functions.get('repeat')?.type).toBe('echo');
  });

  it.each(['http', 'fastapi'])('accepts front_end _type %s', (type) => {
    expect(
      parse(`general:\n  front_end:\n    _type: ${type}\n${ECHO}`).settings.general.front_end._type,
    ).toBe(type);
  });

  it.each([
    'path',
    'websocket_path',
    'openai_api_path',
    'openai_api_v1_path',
    'legacy_path',
    'legacy_openai_api_path',
  ])('lets workflow.%s be set to null to remove that route', (key) => {
    const { settings } = parse(`general:\n  front_end:\n    workflow:\n      ${key}: null\n${ECHO}`);
    const routes = settings.general.front_end.workflow as unknown as Record<string, unknown>;
    expect(routes[key]).toBeNull();
  });
});

describe('environment interpolation', () => {
  const yaml = `
general:
  front_end:
    host: \${HOST:-127.0.0.1}
    port: \${PORT:-8000}
    root_path: /api\${SUFFIX:-}
    disable_legacy_routes: \${NO_LEGACY:-false}
workflow:
  _type: echo
  description: 'Echo for \${TEAM}'
`;

  it('uses the defaults when the variables are unset, typed like YAML values', () => {
    const { settings, workflow } = parse(yaml, { TEAM: 'ops' });
    expect(settings.general.front_end.host).toBe('127.0.0.1');
    expect(settings.general.front_end.port).toBe(8000);
    expect(settings.general.front_end.root_path).toBe('/api');
    expect(settings.general.front_end.disable_legacy_routes).toBe(false);
    expect(workflow.description).toBe('Echo for ops');
  });

  it('uses the environment when set; a whole-value placeholder takes the YAML type of the value', () => {
    const { settings } = parse(yaml, {
      TEAM: 'ops',
      HOST: '0.0.0.0',
      PORT: '9001',
      SUFFIX: '/v2',
      NO_LEGACY: 'true',
    });
    expect(settings.general.front_end.host).toBe('0.0.0.0');
    expect(settings.general.front_end.port).toBe(9001);
    expect(settings.general.front_end.root_path).toBe('/api/v2');
    expect(settings.general.front_end.disable_legacy_routes).toBe(true);
  });

  it('reports an unset variable without a default, naming it and the YAML path', () => {
    const err = errorOf(yaml);
    const problem = problemAt(err, 'workflow.description');
    expect(problem.message).toContain('TEAM');
    expect(problem.message).toMatch(/not set/);
    expect(problem.line).toBe(10);
    expect(err.message).toContain('app.yml:10: workflow.description:');
  });

  it('reports a non-numeric value substituted into a number', () => {
    const err = errorOf(yaml, { TEAM: 'ops', PORT: 'eighty' });
    expect(problemAt(err, 'general.front_end.port').message).toMatch(/integer/);
  });

  it('interpolates inside lists', () => {
    const { settings } = parse(
      `general:\n  front_end:\n    cors:\n      allow_origins: ['\${ORIGIN}', 'https://b.example']\n${ECHO}`,
      { ORIGIN: 'https://a.example' },
    );
    expect(settings.general.front_end.cors.allow_origins).toEqual(['https://a.example', 'https://b.example']);
  });
});

describe('invalid configs', () => {
  const BROKEN = `general:
  front_end:
    _type: grpc
    prot: 8000
    port: 70000
    workflow:
      path: no-leading-slash
  enable_per_user_monitorng: true
functions:
  helper:
    _type: no_such_type
  plan:
    _type: scripted
    steps:
      - stream: { text: 'Hello {{nobody}}' }
workflow:
  _type: scripted
  steps:
    - stream: { text: hi }
    - sleep: { seconds: -1 }
    - stream: { text: 42 }
  outptu: typo
`;

  it('lists every problem in the file at once, each with its path and line', () => {
    const err = errorOf(BROKEN);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.file).toBe('app.yml');
    expect(problemAt(err, 'general.front_end._type')).toEqual({
      path: 'general.front_end._type',
      message: expect.stringMatching(/http, fastapi/),
      line: 3,
    });
    expect(problemAt(err, 'general.front_end.prot')).toMatchObject({
      message: expect.stringMatching(/not permitted/),
      line: 4,
    });
    expect(problemAt(err, 'general.front_end.port')).toMatchObject({
      message: expect.stringMatching(/65535/),
      line: 5,
    });
    expect(problemAt(err, 'general.front_end.workflow.path')).toMatchObject({
      message: expect.stringMatching(/absolute URL path/),
      line: 7,
    });
    expect(problemAt(err, 'general.enable_per_user_monitorng').line).toBe(8);
    expect(problemAt(err, 'functions.helper._type')).toMatchObject({
      message: expect.stringMatching(/no_such_type.*known types: echo, per_user_counter, scripted/),
      line: 11,
    });
    expect(problemAt(err, 'functions.plan.steps[0]').message).toMatch(/nobody/);
    expect(problemAt(err, 'workflow.steps[1].sleep.seconds')).toMatchObject({
      message: expect.stringMatching(/greater than or equal to 0/),
      line: 20,
    });
    expect(problemAt(err, 'workflow.steps[2].stream.text')).toMatchObject({
      message: expect.stringMatching(/string/),
      line: 21,
    });
    expect(problemAt(err, 'workflow.outptu').line).toBe(22);
    expect(err.problems).toHaveLength(10);
  });

  it('prints each problem as file:line: path: message', () => {
    const lines = errorOf(BROKEN).message.split('\n');
    expect(lines[0]).toBe('Invalid config app.yml:');
    expect(lines).toContain('  app.yml:21: workflow.steps[2].stream.text: Input should be a valid string');
    expect(lines).toContain('  app.yml:4: general.front_end.prot: Extra inputs are not permitted');
    expect(lines.slice(1).every((l) => /^ {2}app\.yml:\d+: \S+: .+/.test(l))).toBe(true);
  });

  it('names the known types for an unknown workflow _type', () => {
    const problem = problemAt(errorOf('workflow:\n  _type: react_agent\n'), 'workflow._type');
    expect(problem.message).toBe(
      'unknown _type "react_agent"; known types: echo, per_user_counter, scripted',
    );
    expect(problem.line).toBe(2);
  });

  it.each([
    ['a top-level section', `workflw:\n  _type: echo\n${ECHO}`, 'workflw'],
    ['general', `general:\n  enable_per_user_monitoring: true\n  frontend: {}\n${ECHO}`, 'general.frontend'],
    ['front_end', `general:\n  front_end:\n    hots: 0.0.0.0\n${ECHO}`, 'general.front_end.hots'],
    [
      'front_end.workflow',
      `general:\n  front_end:\n    workflow:\n      lgacy_path: /x\n${ECHO}`,
      'general.front_end.workflow.lgacy_path',
    ],
    [
      'cors',
      `general:\n  front_end:\n    cors:\n      allow_origin: ['*']\n${ECHO}`,
      'general.front_end.cors.allow_origin',
    ],
    ['the workflow', 'workflow:\n  _type: echo\n  use_openai: true\n', 'workflow.use_openai'],
    [
      'a step',
      'workflow:\n  _type: scripted\n  steps:\n    - stream: { text: hi, delay: 1 }\n',
      'workflow.steps[0].stream.delay',
    ],
  ])('rejects an unknown key in %s', (_where, yaml, path) => {
    expect(problemAt(errorOf(yaml), path).message).toBe('Extra inputs are not permitted');
  });

  it('requires a workflow', () => {
    const err = errorOf('general:\n  enable_per_user_monitoring: false\n');
    expect(problemAt(err, 'workflow').message).toBe('Field required');
    expect(errorOf('').problems.map((p) => p.path)).toEqual(['workflow']);
  });

  it('requires a _type on every component', () => {
    const err = errorOf('functions:\n  f:\n    description: no type\nworkflow:\n  description: none\n');
    expect(problemAt(err, 'functions.f').message).toMatch(/_type/);
    expect(problemAt(err, 'workflow').message).toMatch(/_type/);
  });

  it('requires a _type on every LLM and authentication provider', () => {
    const err = errorOf(`llms:\n  nim:\n    model_name: x\nauthentication:\n  github: oops\n${ECHO}`);
    expect(problemAt(err, 'llms.nim').message).toMatch(/_type/);
    expect(problemAt(err, 'authentication.github').message).toMatch(/_type/);
  });

  it('reports a wrong type as a wrong type, not as out of range', () => {
    const err = errorOf(`general:\n  front_end:\n    port: eighty\n    max_body_bytes: 1.5\n${ECHO}`);
    expect(problemAt(err, 'general.front_end.port').message).toBe('Input should be a valid integer');
    expect(problemAt(err, 'general.front_end.max_body_bytes').message).toBe(
      'Input should be a valid integer',
    );
  });

  it('rejects an empty section instead of silently dropping its defaults', () => {
    const err = errorOf(`general:\n  front_end:\n    cors:\n    port:\n${ECHO}`);
    expect(problemAt(err, 'general.front_end.cors').line).toBe(3);
    expect(problemAt(err, 'general.front_end.port').line).toBe(4);
    expect(problemAt(errorOf(`general:\n  front_end:\n${ECHO}`), 'general.front_end').line).toBe(2);
  });

  it('rejects a non-mapping file', () => {
    expect(errorOf('- just\n- a list\n').problems.length).toBeGreaterThan(0);
  });

  it('reports YAML syntax errors with their line', () => {
    const err = errorOf('workflow:\n  _type: echo\n  description: [unclosed\n');
    expect(err.problems.length).toBeGreaterThan(0);
    expect(err.problems.every((p) => typeof p.line === 'number' && p.line >= 3)).toBe(true);
    expect(err.message).toMatch(/^ {2}app\.yml:\d+: \(root\): /m);
  });

  it('rejects duplicate keys', () => {
    expect(errorOf('workflow:\n  _type: echo\nworkflow:\n  _type: scripted\n').problems[0].line).toBe(3);
  });
});

describe('loadConfig', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'interlude-config-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads and builds a file, interpolating from the given environment', () => {
    const file = join(dir, 'ok.yml');
    writeFileSync(file, `general:\n  front_end:\n    port: \${PORT:-8000}\n${ECHO}`);
    const config = loadConfig(file, builtinRegistry(), { PORT: '8123' });
    expect(config.file).toBe(file);
    expect(config.settings.general.front_end.port).toBe(8123);
    expect(config.workflow.type).toBe('echo');
  });

  it('names the file in every problem', () => {
    const file = join(dir, 'bad.yml');
    writeFileSync(file, 'workflow:\n  _type: nope\n  extra: 1\n');
    expect(() => loadConfig(file, builtinRegistry(), {})).toThrow(ConfigError);
    try {
      loadConfig(file, builtinRegistry(), {});
    } catch (err) {
      const message = (err as ConfigError).message;
      expect(message).toContain(`Invalid config ${file}:`);
      expect(message).toContain(`${file}:2: workflow._type: unknown _type "nope"`);
    }
  });

  it('reports a missing file as a ConfigError naming it', () => {
    const file = join(dir, 'missing.yml');
    expect(() => loadConfig(file, builtinRegistry(), {})).toThrow(ConfigError);
    expect(() => loadConfig(file, builtinRegistry(), {})).toThrow(/missing\.yml.*cannot read the file/s);
  });
});
