import { readFile, stat } from 'node:fs/promises';
import { ConfigError, type ConfigProblemAt } from '../../../config/config.loader';
import type { EvalDatasetConfig } from '../../../config/eval.schema';
import type { EvalInputItem } from '../evaluators/evaluator';
import { CsvError, parseCsv } from './csv';

/** One row as read, before its keys are checked: where it is and its fields. */
interface RawRow {
  /** The row's index in the file (0-based; JSON paths name it). */
  index: number;
  line?: number;
  value: unknown;
  /** Why the row could not be read (reported with the other rows' problems, in row order). */
  unreadable?: string;
}

const MAX_LISTED = 20;

function rowsOfJson(text: string, problems: ConfigProblemAt[]): RawRow[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    problems.push({ path: '', message: `not JSON: ${(err as Error).message}` });
    return [];
  }
  if (!Array.isArray(parsed)) {
    problems.push({ path: '', message: 'a JSON dataset is a list of objects' });
    return [];
  }
  return parsed.map((value, index) => ({ index, value }));
}

function rowsOfJsonl(text: string): RawRow[] {
  const rows: RawRow[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    try {
      rows.push({ index: rows.length, line: i + 1, value: JSON.parse(line) });
    } catch (err) {
      const unreadable = `not JSON: ${(err as Error).message}`;
      rows.push({ index: rows.length, line: i + 1, value: undefined, unreadable });
    }
  });
  return rows;
}

function rowsOfCsv(text: string, problems: ConfigProblemAt[]): RawRow[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    problems.push({ path: '', line: err.line, message: err.message.replace(/^line \d+: /, '') });
    return [];
  }
  const [header, ...body] = records;
  if (!header) return [];
  const names = header.fields;
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '' || seen.has(name)) {
      problems.push({
        path: '',
        line: header.line,
        message: `the header has ${name === '' ? 'an empty' : `a repeated "${name}"`} column name`,
      });
    }
    seen.add(name);
  }
  if (problems.length > 0) return [];
  return body.map((record, index) => {
    if (record.fields.length !== names.length) {
      const unreadable = `${record.fields.length} fields, but the header has ${names.length}`;
      return { index, line: record.line, value: undefined, unreadable };
    }
    const value: Record<string, string> = {};
    names.forEach((name, i) =>
      Object.defineProperty(value, name, { value: record.fields[i], enumerable: true }),
    );
    return { index, line: record.line, value };
  });
}

/** A CSV cell naming tools: a JSON list, or names separated by commas. */
function trajectoryOf(value: unknown): unknown[] | string {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return 'must be a list of tool names or steps';
  const text = value.trim();
  if (text === '') return [];
  if (text.startsWith('[')) {
    try {
      const list: unknown = JSON.parse(text);
      return Array.isArray(list) ? list : 'must be a list of tool names or steps';
    } catch {
      return 'is neither a JSON list nor names separated by commas';
    }
  }
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** Checks a row's keys and makes the item the workflow and the evaluators see. */
function itemOf(
  row: RawRow,
  config: EvalDatasetConfig,
  ids: Set<string>,
  problems: ConfigProblemAt[],
): EvalInputItem | undefined {
  const at = (key?: string) => ({
    path: key === undefined ? `[${row.index}]` : `[${row.index}].${key}`,
    line: row.line,
  });
  if (row.unreadable !== undefined) {
    problems.push({ ...at(), message: row.unreadable });
    return undefined;
  }
  if (row.value === null || typeof row.value !== 'object' || Array.isArray(row.value)) {
    problems.push({ ...at(), message: 'a row is an object' });
    return undefined;
  }
  const entry = row.value as Record<string, unknown>;
  const own = (key: string) => (Object.hasOwn(entry, key) ? entry[key] : undefined);
  const { id_key, structure } = config;
  const id = own(id_key);
  const before = problems.length;
  if ((typeof id !== 'string' && typeof id !== 'number') || id === '') {
    problems.push({
      ...at(id_key),
      message: `missing: each row needs an "${id_key}" (a string or a number)`,
    });
  } else if (ids.has(String(id))) {
    problems.push({ ...at(id_key), message: `"${String(id)}" is the id of an earlier row too` });
  } else ids.add(String(id));
  const question = own(structure.question_key);
  if (question === undefined || question === null || question === '') {
    problems.push({
      ...at(structure.question_key),
      message: `missing: each row needs a "${structure.question_key}"`,
    });
  }
  if (own(structure.answer_key) === undefined) {
    problems.push({
      ...at(structure.answer_key),
      message: `missing: each row needs an "${structure.answer_key}"`,
    });
  }
  const rawTrajectory = own(structure.expected_trajectory_key);
  const expected = rawTrajectory === undefined ? undefined : trajectoryOf(rawTrajectory);
  if (typeof expected === 'string')
    problems.push({ ...at(structure.expected_trajectory_key), message: expected });
  if (problems.length > before) return undefined;
  return {
    id,
    input_obj: question,
    expected_output_obj: own(structure.answer_key),
    output_obj: null,
    trajectory: [],
    expected_trajectory: expected as unknown[] | undefined,
    full_dataset_entry: entry,
  };
}

/**
 * Reads a dataset (JSON list, JSON Lines or CSV with a header row) into evaluation items. Files over
 * `max_bytes` are refused before they are read, datasets over `max_items` rows after. Every bad row is
 * reported at once, by path and line: `data.csv:4: [2].question: missing: …`.
 */
export async function loadDataset(file: string, config: EvalDatasetConfig): Promise<EvalInputItem[]> {
  const fail = (problems: ConfigProblemAt[]) => {
    const listed = problems.slice(0, MAX_LISTED);
    if (problems.length > MAX_LISTED)
      listed.push({ path: '', message: `${problems.length - MAX_LISTED} more problems not listed` });
    return new ConfigError(file, listed);
  };
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (err) {
    throw fail([{ path: '', message: `cannot read the dataset: ${(err as Error).message}` }]);
  }
  if (size > config.max_bytes) {
    throw fail([
      { path: '', message: `the dataset is ${size} bytes, more than max_bytes (${config.max_bytes})` },
    ]);
  }
  const text = await readFile(file, 'utf8');
  if (Buffer.byteLength(text) > config.max_bytes) {
    throw fail([{ path: '', message: `the dataset is larger than max_bytes (${config.max_bytes})` }]);
  }
  const problems: ConfigProblemAt[] = [];
  const rows =
    config._type === 'json'
      ? rowsOfJson(text, problems)
      : config._type === 'jsonl'
        ? rowsOfJsonl(text)
        : rowsOfCsv(text, problems);
  if (rows.length > config.max_items) {
    throw fail([
      { path: '', message: `the dataset has ${rows.length} rows, more than max_items (${config.max_items})` },
    ]);
  }
  const ids = new Set<string>();
  const items = rows.map((row) => itemOf(row, config, ids, problems));
  if (problems.length > 0) throw fail(problems);
  if (items.length === 0) throw fail([{ path: '', message: 'the dataset has no rows' }]);
  return items as EvalInputItem[];
}
