import { ConfigError } from './config.loader';
import { ECHO, errorOf, parse, problemAt } from '../../test/utils/config-helpers';

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
      message: expect.stringMatching(/no_such_type.*known types: .*echo, .*scripted/),
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
    const problem = problemAt(errorOf('workflow:\n  _type: rewoo_agnet\n'), 'workflow._type');
    expect(problem.message).toBe(
      'unknown _type "rewoo_agnet"; known types: ask_confirmation, ask_question, calculator, chat_completion, code_generation, current_datetime, current_request_attributes, current_timezone, echo, http_request, parallel_executor, per_user_counter, per_user_react_agent, react_agent, reasoning_agent, responses_api_agent, rewoo_agent, router_agent, scripted, sequential_executor, tool_calling_agent, wiki_search',
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

  it('names general.executions.store and the drivers there are for an unknown store', () => {
    const err = errorOf(`general:\n  executions:\n    store: redis\n${ECHO}`);
    expect(problemAt(err, 'general.executions.store')).toMatchObject({
      message: 'store must be one of: memory, postgres',
      line: 3,
    });
  });

  it('refuses a lease shorter than two seconds and a shutdown grace under one', () => {
    const err = errorOf(
      `general:\n  shutdown_grace_seconds: 0\n  executions:\n    lease_seconds: 1\n${ECHO}`,
    );
    expect(problemAt(err, 'general.executions.lease_seconds')).toMatchObject({ line: 4 });
    expect(problemAt(err, 'general.shutdown_grace_seconds')).toMatchObject({ line: 2 });
  });

  it('refuses a share of running jobs under one (per user, anonymous callers together); defaults 5 and 5', () => {
    const err = errorOf(
      `general:\n  async:\n    max_running_jobs_per_user: 0\n    max_running_anonymous_jobs: 1.5\n${ECHO}`,
    );
    expect(problemAt(err, 'general.async.max_running_jobs_per_user')).toMatchObject({ line: 3 });
    expect(problemAt(err, 'general.async.max_running_anonymous_jobs')).toMatchObject({ line: 4 });
    const { max_running_jobs_per_user, max_running_anonymous_jobs } = parse(ECHO).settings.general.async;
    expect([max_running_jobs_per_user, max_running_anonymous_jobs]).toEqual([5, 5]);
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

  it("refuses allow_origins ['*'] with allow_credentials, naming the path", () => {
    const err = errorOf(
      `general:\n  front_end:\n    cors:\n      allow_origins: ['*']\n      allow_credentials: true\n${ECHO}`,
    );
    expect(problemAt(err, 'general.front_end.cors.allow_origins').message).toMatch(
      /'\*' cannot be combined with allow_credentials/,
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

describe('general.front_end.attachments.file_types', () => {
  const withTypes = (types: string) =>
    errorOf(`general:\n  front_end:\n    attachments:\n      file_types: ${types}\n${ECHO}`);

  it('takes media types without parameters, and no image type', () => {
    expect(
      problemAt(
        withTypes("[application/pdf, 'text/plain; charset=utf-8']"),
        'general.front_end.attachments.file_types',
      ),
    ).toMatchObject({
      message: expect.stringContaining('lower-case media type without parameters'),
      line: 4,
    });
    expect(
      problemAt(withTypes('[application/pdf, image/png]'), 'general.front_end.attachments.file_types')
        .message,
    ).toBe('file_types takes no image types: list them in image_types');
  });
});
