import { takeNatPaths } from '../runtime/nat-fields';
import type { ConfigFile } from './config.schema';

type Loc = (string | number)[];

/** A field a config sets, where, and what about it. */
export interface ConfigNote {
  loc: Loc;
  message: string;
}

const DASK = 'Interlude runs async jobs in its own process, without Dask';

/** NeMo Agent Toolkit front-end fields that configure nothing here, and why. */
const IGNORED_FRONT_END: Record<string, string> = {
  reload: 'Interlude does not reload on file changes; restart it to load a changed config',
  workers: 'Interlude runs one process per server; run several replicas to scale out',
  scheduler_address: DASK,
  dask_workers: DASK,
  dask_log_level: DASK,
  dask_worker_memory_limit: DASK,
  dask_threads_per_worker: DASK,
  use_gunicorn: 'Interlude is a Node.js server; Gunicorn does not apply',
  runner_class: 'Interlude is a Node.js server; NAT runner classes do not apply',
  object_store: 'static file upload (/static) is not served',
  max_concurrent_users: 'limit waiting runs with general.max_waiting_executions instead',
  user_idle_timeout: 'set general.per_user_workflow_timeout instead',
  cleanup_check_interval: 'set general.per_user_workflow_cleanup_interval instead',
  require_user_id: 'set general.auth.require_identity instead',
};

/** Paths of an extra endpoint other than `path` and `legacy_path`. */
const IGNORED_ENDPOINT_PATHS = [
  'websocket_path',
  'openai_api_path',
  'openai_api_v1_path',
  'legacy_openai_api_path',
];

const TELEMETRY: Record<string, string> = {
  logging: 'logging is set with LOG_LEVEL',
  tracing: 'traces are exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set',
};

/** NAT's top-level sections (and general members) that configure nothing here, and why. */
const IGNORED_SECTIONS: Record<string, string> = {
  'general.telemetry.enabled': 'traces are exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set',
  optimizer: "NAT's optimizer (`nat optimize`) does not run here",
  ttc_strategies: "NAT's test-time compute strategies do not run here",
  object_stores: 'object stores are Python components; serve the functions that use them over MCP',
  middleware:
    "NAT's function middleware does not run here (ask_confirmation asks a person before a step instead)",
  trainers: 'finetuning (`nat finetune`) does not run here',
  trainer_adapters: 'finetuning (`nat finetune`) does not run here',
  trajectory_builders: 'finetuning (`nat finetune`) does not run here',
  finetuning: 'finetuning (`nat finetune`) does not run here',
};

/** NAT front ends other than FastAPI: Interlude serves all its faces on one HTTP server instead. */
const OTHER_FRONT_ENDS: Record<string, string> = {
  mcp: 'tools are served over MCP at /mcp on the HTTP server (docs/from-nemo-agent-toolkit.md)',
  fastmcp: 'tools are served over MCP at /mcp on the HTTP server (docs/from-nemo-agent-toolkit.md)',
  a2a: 'the workflow is served over A2A by the HTTP server (docs/from-nemo-agent-toolkit.md)',
  console: '`interlude run --input TEXT` runs the workflow once from a terminal',
  a365: 'Microsoft Agent 365 is not served; the workflow is served over HTTP',
};

/**
 * Before validation: NAT sections that configure nothing here leave the file with a warning each, and
 * a front end NAT has but Interlude serves differently becomes the HTTP front end (host and port kept).
 */
export function takeNatSections(plain: unknown): { plain: unknown; warnings: ConfigNote[] } {
  const { settings, notes } = takeNatPaths(plain, IGNORED_SECTIONS);
  const warnings: ConfigNote[] = [...notes];
  const general = mapping(mapping(settings).general);
  const frontEnd = mapping(general.front_end);
  const type = frontEnd._type;
  if (typeof type === 'string' && Object.hasOwn(OTHER_FRONT_ENDS, type)) {
    const { host, port } = frontEnd;
    general.front_end = { ...(host !== undefined && { host }), ...(port !== undefined && { port }) };
    const dropped = Object.keys(frontEnd).filter((k) => !['_type', 'host', 'port'].includes(k));
    warnings.push({
      loc: ['general', 'front_end', '_type'],
      message:
        `NAT's "${type}" front end: ${OTHER_FRONT_ENDS[type]}` +
        (dropped.length ? `; its fields ${dropped.join(', ')} are not used` : ''),
    });
  }
  return { plain: settings, warnings };
}

const mapping = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * Turns a NAT `front_end.db_url` (a SQLAlchemy URL) into a `general.db_url`: `sqlite:///rel.db`,
 * `sqlite:////abs.db`, `sqlite://` (in memory) and `postgresql[+driver]://…`.
 */
export function fromSqlAlchemyUrl(url: string): string | undefined {
  if (url === 'sqlite://' || url === 'sqlite:///:memory:') return 'sqlite::memory:';
  if (url.startsWith('sqlite:///')) return `sqlite:${url.slice('sqlite:///'.length)}`;
  const postgres = /^postgres(?:ql)?(?:\+[a-z0-9_]+)?:\/\/(.*)$/i.exec(url);
  return postgres ? `postgresql://${postgres[1]}` : undefined;
}

/**
 * What a NAT user's general section means here, once it validated: `front_end.db_url` feeds the
 * database when `general.db_url` is not set, extra endpoints must name functions, and every field that
 * configures nothing here is a warning naming it and why.
 */
export function applyNatFields(
  plain: unknown,
  settings: ConfigFile,
): { warnings: ConfigNote[]; problems: ConfigNote[] } {
  const warnings: ConfigNote[] = [];
  const problems: ConfigNote[] = [];
  const general = mapping(mapping(plain).general);
  const frontEnd = mapping(general.front_end);
  const at = (...loc: Loc) => ['general', ...loc];

  if (general.use_uvloop !== undefined) {
    warnings.push({ loc: at('use_uvloop'), message: 'Node.js has one event loop; there is none to choose' });
  }
  const telemetry = mapping(general.telemetry);
  for (const [kind, why] of Object.entries(TELEMETRY)) {
    for (const [name, exporter] of Object.entries(mapping(telemetry[kind]))) {
      const type = mapping(exporter)._type;
      const what =
        typeof type === 'string'
          ? `${kind} exporter "${type}" is not supported`
          : `${kind} exporters are not supported`;
      warnings.push({ loc: at('telemetry', kind, name), message: `${what}; ${why}` });
    }
  }
  for (const [field, why] of Object.entries(IGNORED_FRONT_END)) {
    if (frontEnd[field] !== undefined) warnings.push({ loc: at('front_end', field), message: why });
  }

  const { front_end: validated } = settings.general;
  validated.endpoints.forEach((endpoint, i) => {
    const loc = at('front_end', 'endpoints', i);
    if (!Object.hasOwn(settings.functions, endpoint.function_name)) {
      const known = Object.keys(settings.functions);
      problems.push({
        loc: [...loc, 'function_name'],
        message: `no entry "${endpoint.function_name}" in functions${known.length ? `; functions: ${known.join(', ')}` : ', and functions: declares none'}`,
      });
    }
    for (const field of IGNORED_ENDPOINT_PATHS) {
      if (endpoint[field as keyof typeof endpoint]) {
        warnings.push({
          loc: [...loc, field],
          message: 'an endpoint serves its function at path and legacy_path only',
        });
      }
    }
  });

  if (typeof frontEnd.db_url === 'string' && general.db_url === undefined) {
    const url = fromSqlAlchemyUrl(frontEnd.db_url);
    if (url === undefined) {
      problems.push({
        loc: at('front_end', 'db_url'),
        message: 'must be sqlite:///<file>, sqlite:// or postgresql://… (or set general.db_url)',
      });
    } else {
      settings.general.db_url = url;
    }
  }
  return { warnings, problems };
}
