import { plainToInstance } from 'class-transformer';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../../config/config.loader';
import { EvalDatasetConfig } from '../../../config/eval.schema';
import { aFolder } from '../../../../test/utils/eval-runner';
import { loadDataset } from './dataset.loader';

const datasetConfig = (fields: Record<string, unknown>) =>
  plainToInstance(EvalDatasetConfig, { file_path: 'unused', ...fields });

async function load(name: string, text: string, fields: Record<string, unknown> = {}) {
  const file = join(aFolder(), name);
  writeFileSync(file, text);
  const type = name.split('.').pop();
  return loadDataset(file, datasetConfig({ _type: type, ...fields }));
}

async function problemsOf(
  name: string,
  text: string,
  fields: Record<string, unknown> = {},
): Promise<string[]> {
  try {
    await load(name, text, fields);
  } catch (err) {
    if (err instanceof ConfigError)
      return err.message
        .split('\n')
        .slice(1)
        .map((l) => l.replace(/^.*?\.(jsonl|json|csv)/, ''));
    throw err;
  }
  throw new Error('expected the dataset to be refused');
}

describe('loading a dataset', () => {
  it('reads a JSON list into items: id, question as input, answer as expected output, the row kept', async () => {
    const items = await load('d.json', JSON.stringify([{ id: 1, question: 'q?', answer: 'a', extra: true }]));
    expect(items).toEqual([
      {
        id: 1,
        input_obj: 'q?',
        expected_output_obj: 'a',
        output_obj: null,
        trajectory: [],
        expected_trajectory: undefined,
        full_dataset_entry: { id: 1, question: 'q?', answer: 'a', extra: true },
      },
    ]);
  });

  it('reads JSON Lines, blank lines skipped', async () => {
    const items = await load(
      'd.jsonl',
      '{"id":"a","question":"q1","answer":"x"}\n\n{"id":"b","question":"q2","answer":"y"}\r\n',
    );
    expect(items.map((i) => [i.id, i.input_obj])).toEqual([
      ['a', 'q1'],
      ['b', 'q2'],
    ]);
  });

  it('reads CSV by its header, with quoted fields and tools as a list or comma-separated names', async () => {
    const items = await load(
      'd.csv',
      'id,question,answer,expected_intermediate_steps\n1,"Where, exactly?","Here","search, book"\n2,Why?,Because,"[""lookup""]"\n',
    );
    expect(items.map((i) => [i.id, i.input_obj, i.expected_output_obj, i.expected_trajectory])).toEqual([
      ['1', 'Where, exactly?', 'Here', ['search', 'book']],
      ['2', 'Why?', 'Because', ['lookup']],
    ]);
  });

  it('takes its key names from id_key and structure', async () => {
    const items = await load(
      'd.json',
      JSON.stringify([{ key: 'k1', prompt: 'p', gold: 'g', tools: ['t'] }]),
      {
        id_key: 'key',
        structure: { question_key: 'prompt', answer_key: 'gold', expected_trajectory_key: 'tools' },
      },
    );
    expect(items[0]).toMatchObject({
      id: 'k1',
      input_obj: 'p',
      expected_output_obj: 'g',
      expected_trajectory: ['t'],
    });
  });

  it('reports every bad row at once, by row path and line', async () => {
    const problems = await problemsOf(
      'd.jsonl',
      [
        '{"id": 1, "question": "ok", "answer": "a"}',
        '{"id": 1, "question": "again", "answer": "a"}',
        '{"question": "no id", "answer": "a"}',
        'not json',
        '{"id": 4, "answer": "a"}',
        '[1, 2]',
        '{"id": 6, "question": "q", "answer": "a", "expected_intermediate_steps": 3}',
      ].join('\n'),
    );
    expect(problems).toEqual([
      ':2: [1].id: "1" is the id of an earlier row too',
      ':3: [2].id: missing: each row needs an "id" (a string or a number)',
      expect.stringMatching(/^:4: \[3\]: not JSON: /),
      ':5: [4].question: missing: each row needs a "question"',
      ':6: [5]: a row is an object',
      ':7: [6].expected_intermediate_steps: must be a list of tool names or steps',
    ]);
  });

  it('refuses CSV rows with the wrong number of fields, and broken quoting, by line', async () => {
    expect(await problemsOf('d.csv', 'id,question,answer\n1,q,a\n2,q\n')).toEqual([
      ':3: [1]: 2 fields, but the header has 3',
    ]);
    expect(await problemsOf('d.csv', 'id,question,answer\n1,"q,a\n')).toEqual([
      ':2: (root): a quoted field is never closed',
    ]);
    expect(await problemsOf('d.csv', 'id,question,question\n1,q,a\n')).toEqual([
      ':1: (root): the header has a repeated "question" column name',
    ]);
  });

  it('refuses a file over max_bytes before reading it, and a dataset over max_items', async () => {
    expect(
      await problemsOf('d.json', JSON.stringify([{ id: 1, question: 'q', answer: 'a' }]), { max_bytes: 10 }),
    ).toEqual([expect.stringMatching(/^: \(root\): the dataset is \d+ bytes, more than max_bytes \(10\)$/)]);
    const rows = Array.from({ length: 4 }, (_, i) => ({ id: i, question: 'q', answer: 'a' }));
    expect(await problemsOf('d.json', JSON.stringify(rows), { max_items: 3 })).toEqual([
      ': (root): the dataset has 4 rows, more than max_items (3)',
    ]);
  });

  it('refuses JSON that is not a list, an empty dataset, and a missing file', async () => {
    expect(await problemsOf('d.json', '{"id": 1}')).toEqual([
      ': (root): a JSON dataset is a list of objects',
    ]);
    expect(await problemsOf('d.json', '[]')).toEqual([': (root): the dataset has no rows']);
    await expect(loadDataset('/nonexistent/d.json', datasetConfig({ _type: 'json' }))).rejects.toThrow(
      'cannot read the dataset',
    );
  });

  it('lists at most 20 problems and counts the rest', async () => {
    const rows = Array.from({ length: 30 }, () => ({ question: 'q', answer: 'a' }));
    const problems = await problemsOf('d.json', JSON.stringify(rows));
    expect(problems).toHaveLength(21);
    expect(problems[20]).toBe(': (root): 10 more problems not listed');
  });
});
