import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { validatePlain } from '../core/validation/validation-issues';
import type { BuildContext, BuiltFunction, BuiltFunctionGroup } from '../runtime/function-type';
import { OutboundPolicy } from '../core/outbound/outbound-policy';
import { SandboxConfig } from '../core/workers/sandbox.config';
import type { FunctionRegistry } from '../runtime/function-registry';
import type { LlmClient } from '../runtime/llm/llm-client';
import { buildLlm } from '../runtime/llm/llm-builder';
import { LLM_TYPES } from '../runtime/llm/llm.config';
import { unknownTypeMessage } from './nat-types';
import { ConfigFile } from './config.schema';
import { checkEvalSection, type CheckedEval } from './eval.schema';
import { applyOverrides, type ConfigOverride } from './config-overrides';
import { interpolate } from './env-interpolation';
import { withBase } from './config-base';
import { resolveFileReferences } from './file-references';
import { applyNatFields, takeNatSections } from './nat-compat';
import { buildGroup } from './function-groups';
import { checkAuthProvider, referenceProblems } from './component-references';
import { toolNameClashes } from './tool-name-clashes';
import { callerNamedProblems, type ParseOptions } from './caller-named-config';
import { takeNatFields } from '../runtime/nat-fields';

export type { ConfigOverride } from './config-overrides';

export interface ConfigProblemAt {
  path: string;
  message: string;
  line?: number;
}

/** Start-up stops with every problem found, each naming the file, the YAML path and the problem. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: ConfigProblemAt[],
  ) {
    super(
      `Invalid config ${file}:\n` +
        problems
          .map((p) => `  ${file}${p.line ? `:${p.line}` : ''}: ${p.path || '(root)'}: ${p.message}`)
          .join('\n'),
    );
    this.name = 'ConfigError';
  }
}

/** The validated config with its workflow and functions built. */
export interface AppConfig {
  file: string;
  settings: ConfigFile;
  /** The workflow as built at start-up (its input schema documents the routes). */
  workflow: BuiltFunction;
  /** `per_user: true`: each user gets an instance of their own, built by `buildWorkflow`. */
  perUser: boolean;
  buildWorkflow(): BuiltFunction;
  functions: Map<string, BuiltFunction>;
  /** `function_groups:`, built but not connected: `connectGroups` connects them at start-up. */
  groups: Map<string, BuiltFunctionGroup>;
  llms: Map<string, LlmClient>;
  /** Fields that configure nothing here, one line each: `file:line: path: ignored: why`. */
  warnings: string[];
  /** The YAML path of each warning, in the same order. */
  warningPaths: string[];
  /** The `eval` section, when the file has one. */
  eval?: CheckedEval;
}

interface Built {
  fn: BuiltFunction;
  make(): BuiltFunction;
  perUser: boolean;
}

export type Loc = (string | number)[];

export function formatPath(loc: Loc): string {
  return loc.reduce<string>(
    (acc, part) => (typeof part === 'number' ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part),
    '',
  );
}

export function lineOf(doc: Document, counter: LineCounter, loc: Loc): number | undefined {
  for (let n = loc.length; n >= 0; n--) {
    const node = doc.getIn(loc.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return counter.linePos(node.range[0]).line;
  }
  return undefined;
}

/** Parses, interpolates, validates and builds a config file's text. Throws ConfigError with every problem. */
export function parseConfig(
  text: string,
  file: string,
  registry: FunctionRegistry,
  serverEnv: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverride[] = [],
  { callerNamed }: ParseOptions = {},
): AppConfig {
  // A caller-named file reads nothing of the server's environment (placeholders, default API keys).
  const env = callerNamed ? {} : serverEnv;
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((e) => ({
        path: '',
        message: e.message.split('\n')[0],
        line: counter.linePos(e.pos[0]).line,
      })),
    );
  }
  const found: { loc: Loc; message: string }[] = [];
  /** NAT fields accepted and ignored, reported once as warnings. */
  const ignored: { loc: Loc; message: string }[] = [];
  try {
    applyOverrides(doc, overrides);
  } catch (err) {
    throw new ConfigError(file, [{ path: '', message: `--override: ${(err as Error).message}` }]);
  }
  // NAT reads an unset `${VAR}` without a default as "": so does the server, with a warning.
  const unset: { loc: Loc; message: string }[] = [];
  if (callerNamed) found.push(...callerNamedProblems(doc.toJS()));
  let merged: unknown;
  try {
    merged = withBase(doc.toJS() ?? {}, file);
  } catch (err) {
    throw new ConfigError(file, [{ path: 'base', message: (err as Error).message.replace(/^base: /, '') }]);
  }
  const natSections = takeNatSections(
    resolveFileReferences(interpolate(merged, env, [], unset), file, found),
  );
  const plain = natSections.plain;

  const top = validatePlain(ConfigFile, plain, [], { forbidUnknown: true });
  if (!top.ok) found.push(...top.issues.map((i) => ({ loc: i.loc, message: i.msg })));
  const nat = top.ok ? applyNatFields(plain, top.value) : { warnings: [], problems: [] };
  found.push(...nat.problems);

  const functions = new Map<string, BuiltFunction>();
  const groups = new Map<string, BuiltFunctionGroup>();
  const llms = new Map<string, LlmClient>();
  const auths = new Map<string, { type: string; config?: object }>();
  let workflow: Built | undefined;
  // Components are checked even when the rest of the file has problems, so every problem is reported.
  const sections = (top.ok ? top.value : plain) as Record<string, unknown>;
  const isMapping = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  const entriesOf = (section: string) => (isMapping(sections[section]) ? sections[section] : {});
  // LLM clients and auth providers are built by their own modules; here each needs at least a _type.
  for (const section of ['llms', 'authentication']) {
    for (const [name, entry] of Object.entries(entriesOf(section))) {
      if (!isMapping(entry) || typeof entry._type !== 'string') {
        found.push({ loc: [section, name], message: 'must be a mapping with a _type' });
      } else if (section === 'authentication') {
        auths.set(name, {
          type: entry._type,
          config: checkAuthProvider(['authentication', name], entry, found, ignored),
        });
      } else if (!(LLM_TYPES as readonly unknown[]).includes(entry._type)) {
        found.push({
          loc: [section, name, '_type'],
          message: unknownTypeMessage('llms', entry._type, [...LLM_TYPES]),
        });
      } else {
        const built = buildLlm(name, entry, env, callerNamed?.outbound);
        if ('llm' in built) {
          llms.set(name, built.llm);
          for (const n of built.notes) ignored.push({ loc: ['llms', name, ...n.loc], message: n.message });
        } else
          found.push(...built.problems.map((p) => ({ loc: ['llms', name, ...p.loc], message: p.message })));
      }
    }
  }
  // A caller-named file's own general section loosens nothing: the served one's limits apply.
  const general = callerNamed?.general ?? (top.ok ? top.value.general : undefined);
  const outbound = callerNamed?.outbound ?? new OutboundPolicy(general?.outbound);
  const sandbox = general?.sandbox ?? new SandboxConfig();
  const attachments = general?.front_end.attachments;
  const images = attachments?.imageLimits();
  const files = attachments?.fileLimits();
  const context = (name: string): BuildContext => ({
    name,
    llm: (llm) => llms.get(llm)!,
    fn: (fn) => functions.get(fn)!,
    outbound,
    sandbox,
    images,
    files,
    group: (group) => groups.get(group),
    authProvider: (auth) => auths.get(auth),
    env,
  });
  const build = (loc: Loc, name: string, component: unknown): Built | undefined => {
    const typeName = (component as { _type?: unknown } | null)?._type;
    if (component === null || typeof component !== 'object' || typeof typeName !== 'string') {
      found.push({ loc, message: 'must be a mapping with a _type' });
      return undefined;
    }
    const type = registry.get(typeName);
    if (!type) {
      found.push({
        loc: [...loc, '_type'],
        message: unknownTypeMessage(
          loc[0] === 'workflow' ? 'workflow' : 'functions',
          typeName,
          registry.known(),
          registry.getGroup(typeName) ? 'function_groups' : undefined,
        ),
      });
      return undefined;
    }
    // `per_user` is the server's business, valid on any component.
    const { per_user: perUser, ...given } = component as Record<string, unknown>;
    const { settings, notes } = takeNatFields(given, type.natFields);
    for (const n of notes) ignored.push({ loc: [...loc, ...n.loc], message: n.message });
    if (perUser !== undefined && typeof perUser !== 'boolean') {
      found.push({ loc: [...loc, 'per_user'], message: 'Input should be a valid boolean' });
    }
    const checked = validatePlain(type.config, settings, loc, { forbidUnknown: true });
    if (!checked.ok) {
      found.push(...checked.issues.map((i) => ({ loc: i.loc, message: i.msg })));
      return undefined;
    }
    const references = type.references?.(checked.value) ?? [];
    const problems = [
      ...(type.check?.(checked.value) ?? []),
      ...referenceProblems(references, name, entriesOf, registry),
    ];
    for (const p of problems) found.push({ loc: [...loc, ...p.loc], message: p.message });
    // An LLM with problems of its own is not built; they are reported under llms:.
    const unbuilt = references.some((r) => r.section === 'llms' && !llms.has(r.name));
    if (problems.length || unbuilt) return undefined;
    const make = () => type.build(checked.value, context(name));
    let fn: BuiltFunction;
    try {
      fn = make();
    } catch (err) {
      // A type that refuses what it was given to build with (an LLM of the wrong API) says so here.
      found.push({ loc, message: (err as Error).message ?? String(err) });
      return undefined;
    }
    return { fn, make, perUser: perUser === true || type.perUser === true };
  };
  for (const [name, component] of Object.entries(entriesOf('function_groups'))) {
    const group = buildGroup(['function_groups', name], component, registry, context(name), found, ignored);
    if (group) groups.set(name, group);
  }
  const declared = isMapping(sections.functions) ? sections.functions : {};
  for (const [name, component] of Object.entries(declared)) {
    const built = build(['functions', name], name, component);
    if (built) functions.set(name, built.fn);
  }
  found.push(...toolNameClashes(entriesOf));
  const jwt = top.ok ? top.value.general.auth.jwt : undefined;
  if (
    jwt &&
    jwt.verify !== false &&
    [jwt.secret, jwt.public_key, jwt.jwks_url].filter(Boolean).length !== 1
  ) {
    found.push({
      loc: ['general', 'auth', 'jwt'],
      message:
        'needs exactly one of secret, public_key or jwks_url (or verify: false to decode without verifying)',
    });
  }
  const evaluation =
    sections.eval === undefined ? undefined : checkEvalSection(sections.eval, Object.keys(entriesOf('llms')));
  // The eval section never stops serve (NAT's own evaluators are mostly Python): what it cannot use
  // is a warning, and /evaluate/item offers no evaluator from a section with problems.
  ignored.push(...(evaluation?.ignored ?? []));
  const evalWarnings = (evaluation?.problems ?? []).map((p) => ({
    ...p,
    message: `${p.message}; the eval section's evaluators are not offered`,
  }));
  // A missing or non-mapping workflow is already reported by the top-level check.
  if (top.ok || isMapping(sections.workflow)) workflow = build(['workflow'], 'workflow', sections.workflow);

  if (found.length > 0 || !top.ok || !workflow) {
    throw new ConfigError(
      file,
      found.map((p) => ({ path: formatPath(p.loc), message: p.message, line: lineOf(doc, counter, p.loc) })),
    );
  }
  const warnings = [
    ...unset.map((w) => ({ ...w, message: `${w.message}; it reads as ""` })),
    ...evalWarnings,
    ...[...natSections.warnings, ...nat.warnings, ...ignored].map((w) => ({
      ...w,
      message: `ignored: ${w.message}`,
    })),
  ];
  return {
    file,
    settings: top.value,
    workflow: workflow.fn,
    perUser: workflow.perUser,
    buildWorkflow: workflow.make,
    functions,
    groups,
    llms,
    eval: evaluation?.eval,
    warnings: warnings.map((w) => {
      const line = lineOf(doc, counter, w.loc);
      return `${file}${line ? `:${line}` : ''}: ${formatPath(w.loc)}: ${w.message}`;
    }),
    warningPaths: warnings.map((w) => formatPath(w.loc)),
  };
}

export function loadConfig(
  file: string,
  registry: FunctionRegistry,
  env: NodeJS.ProcessEnv = process.env,
  overrides: ConfigOverride[] = [],
  options: ParseOptions = {},
): AppConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: '', message: `cannot read the file: ${(err as Error).message}` }]);
  }
  return parseConfig(text, file, registry, env, overrides, options);
}
