import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinRegistry } from '../runtime/builtin-functions';
import { ConfigError, loadConfig } from './config.loader';
import { ECHO, errorOf, parse, problemAt } from '../../test/utils/config-helpers';

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
    authorization_url: https://github.com/login/oauth/authorize
    token_url: https://github.com/login/oauth/access_token
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

  it('reads an unset variable without a default as "" (as NAT does), with a warning naming it and its line', () => {
    const { workflow, warnings } = parse(yaml);
    expect(workflow.description).toBe('Echo for ');
    expect(warnings).toEqual([
      'app.yml:10: workflow.description: environment variable TEAM is not set and has no default (${TEAM:-default}); it reads as ""',
    ]);
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
