import { ECHO, errorOf, parse, problemAt } from '../../test/utils/config-helpers';

/** A NeMo Agent Toolkit user's general section, every front-end field NAT documents set. */
const NAT_GENERAL = `general:
  use_uvloop: true
  telemetry:
    logging:
      console: { _type: console, level: WARN }
    tracing:
      phoenix: { _type: phoenix, endpoint: http://localhost:6006/v1/traces, project: demo }
  front_end:
    _type: fastapi
    host: 0.0.0.0
    port: 8000
    reload: false
    workers: 4
    scheduler_address: tcp://127.0.0.1:8786
    db_url: sqlite:///./async_jobs.db
    max_running_async_jobs: 3
    dask_workers: threads
    dask_log_level: INFO
    dask_worker_memory_limit: 4GB
    dask_threads_per_worker: 2
    use_gunicorn: true
    runner_class: my.Runner
    object_store: my_store
    evaluate: { method: POST, path: /evaluate, description: Evaluate }
    evaluate_item: { method: POST, path: /evaluate/item, description: Evaluate one }
    endpoints:
      - { method: POST, path: /tools/echo, description: Echo it, function_name: shout }
functions:
  shout: { _type: echo }
`;

describe("a NeMo Agent Toolkit user's config", () => {
  it('loads with every documented front-end, general and telemetry field', () => {
    const config = parse(`${NAT_GENERAL}${ECHO}`);
    const frontEnd = config.settings.general.front_end;
    expect(frontEnd.max_running_async_jobs).toBe(3);
    expect(frontEnd.endpoints).toEqual([
      expect.objectContaining({ method: 'POST', path: '/tools/echo', function_name: 'shout' }),
    ]);
  });

  it('warns once per ignored field, naming it, its line and why', () => {
    const { warnings } = parse(`${NAT_GENERAL}${ECHO}`);
    const paths = warnings.map((w) => /^app\.yml:\d+: (\S+): ignored: ./.exec(w)?.[1]);
    expect(paths).toEqual([
      'general.use_uvloop',
      'general.telemetry.logging.console',
      'general.telemetry.tracing.phoenix',
      'general.front_end.reload',
      'general.front_end.workers',
      'general.front_end.scheduler_address',
      'general.front_end.dask_workers',
      'general.front_end.dask_log_level',
      'general.front_end.dask_worker_memory_limit',
      'general.front_end.dask_threads_per_worker',
      'general.front_end.use_gunicorn',
      'general.front_end.runner_class',
      'general.front_end.object_store',
    ]);
    expect(warnings.find((w) => w.includes('.workers:'))).toBe(
      'app.yml:13: general.front_end.workers: ignored: Interlude runs one process per server; run several replicas to scale out',
    );
    expect(warnings.find((w) => w.includes('tracing.phoenix'))).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it('a config that sets none of them loads without warnings', () => {
    expect(parse(ECHO).warnings).toEqual([]);
  });

  it('front_end.db_url (a SQLAlchemy URL) feeds the database when general.db_url is not set', () => {
    const withFrontEnd = (url: string, general = '') =>
      parse(`general:\n${general}  front_end:\n    db_url: ${url}\n${ECHO}`).settings.general.db_url;
    expect(withFrontEnd('sqlite:///./async_jobs.db')).toBe('sqlite:./async_jobs.db');
    expect(withFrontEnd('sqlite:////var/lib/jobs.db')).toBe('sqlite:/var/lib/jobs.db');
    expect(withFrontEnd('sqlite://')).toBe('sqlite::memory:');
    expect(withFrontEnd('postgresql+psycopg://u:p@db:5432/jobs')).toBe('postgresql://u:p@db:5432/jobs');
    expect(withFrontEnd('sqlite:///./a.db', '  db_url: sqlite:./b.db\n')).toBe('sqlite:./b.db');
    expect(
      problemAt(
        errorOf(`general:\n  front_end:\n    db_url: mysql://x/y\n${ECHO}`),
        'general.front_end.db_url',
      ).message,
    ).toMatch(/sqlite/);
  });

  it('truly unknown keys still fail, in front_end, general and telemetry', () => {
    const err = errorOf(
      `general:\n  colour: blue\n  telemetry:\n    metrics: {}\n  front_end:\n    wrokers: 2\n${ECHO}`,
    );
    expect(problemAt(err, 'general.colour').message).toMatch(/Extra inputs are not permitted/);
    expect(problemAt(err, 'general.telemetry.metrics').message).toMatch(/Extra inputs are not permitted/);
    expect(problemAt(err, 'general.front_end.wrokers').message).toMatch(/Extra inputs are not permitted/);
  });

  it('NAT fields keep their types: workers must be a whole number of at least 1', () => {
    const err = errorOf(`general:\n  front_end:\n    workers: 0\n    dask_workers: fibers\n${ECHO}`);
    expect(problemAt(err, 'general.front_end.workers').message).toMatch(/1/);
    expect(problemAt(err, 'general.front_end.dask_workers').message).toMatch(/threads/);
  });

  it('an endpoint must name a function of functions:', () => {
    const err = errorOf(
      `general:\n  front_end:\n    endpoints:\n      - { method: POST, path: /x, description: X, function_name: nope }\n${ECHO}`,
    );
    expect(problemAt(err, 'general.front_end.endpoints[0].function_name').message).toMatch(
      /no entry "nope" in functions/,
    );
  });

  it("an auth provider's preflight_auth (NAT's, on every provider) is accepted with a warning naming it", () => {
    const { warnings, settings } = parse(
      `authentication:\n  github:\n    _type: oauth2_auth_code_flow\n    client_id: abc\n` +
        `    authorization_url: https://github.com/login/oauth/authorize\n` +
        `    token_url: https://github.com/login/oauth/access_token\n    preflight_auth: true\n${ECHO}`,
    );
    expect(settings.authentication.github).toMatchObject({ client_id: 'abc' });
    expect(warnings).toEqual([
      expect.stringMatching(/^app\.yml:7: authentication\.github\.preflight_auth: ignored: .*first needs/),
    ]);
  });
});
