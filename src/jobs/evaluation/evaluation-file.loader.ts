import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import {
  ConfigError,
  formatPath,
  lineOf,
  loadConfig,
  parseConfig,
  type AppConfig,
} from '../../config/config.loader';
import { callerNamedProblems, type CallerNamed } from '../../config/caller-named-config';
import { checkEvalSection, type EvalDatasetConfig, type EvaluatorConfig } from '../../config/eval.schema';
import type { EvalGeneralConfig } from '../../config/eval.schema';
import { OutboundPolicy } from '../../core/outbound/outbound-policy';
import type { FunctionRegistry } from '../../runtime/function-registry';
import type { BuiltFunction } from '../../runtime/function-type';
import { buildLlm } from '../../runtime/llm/llm-builder';
import type { LlmClient } from '../../runtime/llm/llm-client';

type Loc = (string | number)[];

/** An evaluation file is a config file; bigger ones are refused before they are parsed. */
const MAX_FILE_BYTES = 1024 * 1024;

/** What an evaluation file asks for, with its paths resolved and its parts built. */
export interface EvaluationPlan {
  file: string;
  general: EvalGeneralConfig;
  dataset: EvalDatasetConfig;
  /** The dataset file, resolved inside the evaluation file's folder. */
  datasetFile: string;
  evaluators: Map<string, EvaluatorConfig>;
  /** The workflow each item runs through; undefined: the served one. */
  workflow?: BuiltFunction;
  /** The models the file itself declares (judges may also name the served config's). */
  llms: Map<string, LlmClient>;
}

/**
 * `relative` resolved against `dir`, refused unless it stays inside `dir` once symbolic links are
 * followed: an evaluation file names files beside it, never elsewhere on the machine.
 */
export function insideFolder(dir: string, path: string): { file: string } | { problem: string } {
  if (isAbsolute(path)) return { problem: 'must be a path relative to the evaluation file' };
  let real: string;
  let realDir: string;
  try {
    realDir = realpathSync(dir);
    real = realpathSync(resolve(dir, path));
  } catch {
    return { problem: `no such file: ${path}` };
  }
  const rel = relative(realDir, real);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    return { problem: "must name a file inside the evaluation file's folder" };
  }
  return { file: real };
}

/**
 * Loads an evaluation file (NeMo Agent Toolkit layout: `eval.general.dataset`, `eval.evaluators`, and
 * optionally `llms:` for judges). A file with a `workflow:` section is a whole config, loaded as the
 * server loads its own, and that workflow runs the items (like `nat eval`); otherwise
 * `eval.general.workflow_config_file` names one, or the served workflow runs them. Every problem is
 * reported at once, as `file:line: path: message`.
 *
 * Callers of `POST /evaluate` name these files, so none of them is the operator's own config: each is
 * loaded as caller-named (no `${VAR}` from the server's environment, the served `general.outbound` for
 * every model, tool and step it declares, checked on the address connected to).
 */
export async function loadEvaluationFile(
  file: string,
  served: AppConfig,
  registry: FunctionRegistry,
): Promise<EvaluationPlan> {
  const { general: servedGeneral } = served.settings;
  const callerNamed: CallerNamed = {
    general: servedGeneral,
    outbound: new OutboundPolicy(servedGeneral.outbound),
  };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: '', message: `cannot read the file: ${(err as Error).message}` }]);
  }
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
    throw new ConfigError(file, [{ path: '', message: `larger than ${MAX_FILE_BYTES} bytes` }]);
  }
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => ({
      path: '',
      message: e.message.split('\n')[0],
      line: counter.linePos(e.pos[0]).line,
    }));
    throw new ConfigError(file, problems);
  }
  const found: { loc: Loc; message: string }[] = [];
  const plain: unknown = doc.toJS() ?? {};
  const top = (plain !== null && typeof plain === 'object' && !Array.isArray(plain) ? plain : {}) as Record<
    string,
    unknown
  >;
  let whole: AppConfig | undefined;
  const llms = new Map<string, LlmClient>();
  let section: ReturnType<typeof checkEvalSection>;
  if (top.workflow !== undefined) {
    // parseConfig reports what a caller-named file may not say (placeholders, general.outbound…).
    whole = parseConfig(text, file, registry, {}, [], { callerNamed });
    for (const [name, llm] of whole.llms) llms.set(name, llm);
    section = whole.eval ? { eval: whole.eval, problems: [] } : { problems: [] };
  } else {
    found.push(...callerNamedProblems(plain));
    for (const key of Object.keys(top)) {
      if (key !== 'eval' && key !== 'llms') {
        found.push({
          loc: [key],
          message: 'an evaluation file without a workflow: section is read for eval and llms only',
        });
      }
    }
    const declared = top.llms ?? {};
    if (declared === null || typeof declared !== 'object' || Array.isArray(declared)) {
      found.push({ loc: ['llms'], message: 'Input should be a valid dictionary' });
    } else {
      for (const [name, entry] of Object.entries(declared)) {
        const built =
          entry !== null && typeof entry === 'object'
            ? buildLlm(name, entry as Record<string, unknown>, {}, callerNamed.outbound)
            : { problems: [{ loc: [], message: 'must be a mapping with a _type' }] };
        if ('llm' in built) llms.set(name, built.llm);
        else
          found.push(...built.problems.map((p) => ({ loc: ['llms', name, ...p.loc], message: p.message })));
      }
    }
    section =
      top.eval === undefined
        ? { problems: [] }
        : checkEvalSection(top.eval, [...new Set([...llms.keys(), ...served.llms.keys()])]);
  }
  found.push(...section.problems);
  if (top.eval === undefined)
    found.push({ loc: ['eval'], message: 'an evaluation file needs an eval section' });
  const general = section.eval?.general;
  const dir = dirname(file);
  let datasetFile: string | undefined;
  let workflowFile: string | undefined;
  if (general && !general.dataset) {
    found.push({ loc: ['eval', 'general', 'dataset'], message: 'an evaluation needs a dataset' });
  } else if (general?.dataset) {
    const inside = insideFolder(dir, general.dataset.file_path);
    if ('problem' in inside)
      found.push({ loc: ['eval', 'general', 'dataset', 'file_path'], message: inside.problem });
    else datasetFile = inside.file;
  }
  if (general?.workflow_config_file !== undefined) {
    const inside = insideFolder(dir, general.workflow_config_file);
    if ('problem' in inside)
      found.push({ loc: ['eval', 'general', 'workflow_config_file'], message: inside.problem });
    else workflowFile = inside.file;
  }
  if (found.length > 0 || !section.eval || !general?.dataset || !datasetFile) {
    throw new ConfigError(
      file,
      found.map((p) => ({ path: formatPath(p.loc), message: p.message, line: lineOf(doc, counter, p.loc) })),
    );
  }
  const workflow = workflowFile
    ? loadConfig(workflowFile, registry, {}, [], { callerNamed }).buildWorkflow()
    : whole?.buildWorkflow();
  return {
    file,
    general,
    dataset: general.dataset,
    datasetFile,
    evaluators: section.eval.evaluators,
    workflow,
    llms,
  };
}
