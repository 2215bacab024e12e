import type { IntermediateStep, IntermediateStepType, StreamEventData } from './intermediate-step';
import { INTERMEDIATE_STEP_TYPES } from './intermediate-step';
import { StepAdaptor, rawStep } from './step-adaptor';

let counter = 0;

/** A step as the runner records it, inside function `fn-1` (whose parent is `root`). */
function step(type: IntermediateStepType, data: StreamEventData | null = null, uuid = `id-${++counter}`) {
  const s: IntermediateStep = {
    parent_id: 'fn-1',
    function_ancestry: {
      function_id: 'fn-1',
      function_name: 'agent',
      parent_id: 'root',
      parent_name: 'root',
    },
    payload: {
      event_type: type,
      event_timestamp: 1_700_000_000,
      span_event_timestamp: null,
      framework: null,
      name: 'thing',
      tags: null,
      metadata: null,
      data,
      usage_info: null,
      UUID: uuid,
    },
  };
  return s;
}

/** A START/END pair sharing one UUID. */
function pair(
  kind: 'LLM' | 'TOOL' | 'FUNCTION' | 'CUSTOM' | 'TASK' | 'WORKFLOW' | 'SPAN',
  input: unknown,
  output: unknown,
) {
  const uuid = `pair-${++counter}`;
  return {
    start: step(`${kind}_START` as IntermediateStepType, { input }, uuid),
    end: step(`${kind}_END` as IntermediateStepType, { input, output }, uuid),
  };
}

describe('StepAdaptor in default mode', () => {
  it('shows LLM, TOOL and FUNCTION steps only', () => {
    const adaptor = new StepAdaptor('default');
    const shown = INTERMEDIATE_STEP_TYPES.filter((type) => {
      // An LLM_END or LLM_NEW_TOKEN needs its LLM_START first, so give each its own.
      const uuid = `u-${type}`;
      if (type.startsWith('LLM_') && type !== 'LLM_START')
        adaptor.adapt(step('LLM_START', { input: 'q' }, uuid));
      return adaptor.adapt(step(type, { input: 'q', output: 'a' }, uuid)) !== null;
    });
    expect(shown.sort()).toEqual(
      [
        'FUNCTION_END',
        'FUNCTION_START',
        'LLM_END',
        'LLM_NEW_TOKEN',
        'LLM_START',
        'TOOL_END',
        'TOOL_START',
      ].sort(),
    );
  });

  it('renders a tool step as markdown with its input and output', () => {
    const adaptor = new StepAdaptor('default');
    const { start, end } = pair('TOOL', { city: 'Lisbon' }, { forecast: 'sunny' });
    const first = adaptor.adapt(start);
    expect(first).toEqual({
      id: start.payload.UUID,
      parent_id: 'fn-1',
      type: 'markdown',
      name: 'Tool: thing',
      payload: expect.stringContaining('"city":"Lisbon"'),
    });
    const last = adaptor.adapt(end);
    expect(last?.id).toBe(start.payload.UUID);
    expect(last?.payload).toContain('**Input:**');
    expect(last?.payload).toContain('**Output:**');
    expect(last?.payload).toContain('"forecast":"sunny"');
  });

  it('escapes &, < and > in what it shows', () => {
    const adaptor = new StepAdaptor('default');
    const { start, end } = pair('TOOL', '<b>a & b</b>', 'x > y');
    adaptor.adapt(start);
    const shown = adaptor.adapt(end)?.payload ?? '';
    expect(shown).toContain('&lt;b&gt;a &amp; b&lt;/b&gt;');
    expect(shown).toContain('x &gt; y');
    expect(shown).not.toContain('<b>');
  });

  it('names function steps Function Start / Function Complete under the parent function', () => {
    const adaptor = new StepAdaptor('default');
    const { start, end } = pair('FUNCTION', 'in', 'out');
    expect(adaptor.adapt(start)).toMatchObject({ name: 'Function Start: thing', parent_id: 'root' });
    const done = adaptor.adapt(end);
    expect(done).toMatchObject({ name: 'Function Complete: thing', parent_id: 'root' });
    expect(done?.payload).toContain('**Function Output:**');
  });

  it('shows an LLM_END only after its LLM_START', () => {
    const adaptor = new StepAdaptor('default');
    const orphan = pair('LLM', 'question', 'answer');
    expect(adaptor.adapt(orphan.end)).toBeNull();

    const { start, end } = pair('LLM', 'question', 'answer');
    expect(adaptor.adapt(start)?.payload).toContain('question');
    const shown = adaptor.adapt(end);
    expect(shown?.name).toBe('thing');
    expect(shown?.payload).toContain('question');
    expect(shown?.payload).toContain('**Output:**\nanswer');
  });

  it('accumulates LLM tokens into the output shown so far', () => {
    const adaptor = new StepAdaptor('default');
    const { start } = pair('LLM', 'q', null);
    const uuid = start.payload.UUID;
    adaptor.adapt(start);
    adaptor.adapt(step('LLM_NEW_TOKEN', { chunk: 'Hel' }, uuid));
    const held = adaptor.adapt(step('LLM_NEW_TOKEN', { chunk: 'lo' }, uuid));
    expect(held).toBeNull();
    expect(adaptor.adapt(step('LLM_END', { output: 'Hello' }, uuid))?.payload).toMatch(
      /\*\*Output:\*\*\nHello$/,
    );
  });
});

/** An LLM call streamed one token per `everyMs` on a clock the adaptor reads. */
function streamed(
  adaptor: (clock: () => number) => StepAdaptor,
  input: unknown,
  pieces: string[],
  everyMs: number,
) {
  let now = 0;
  const shown = adaptor(() => now);
  const { start, end } = pair('LLM', input, pieces.join(''));
  const uuid = start.payload.UUID;
  const sent = [shown.adapt(start)];
  for (const chunk of pieces) {
    sent.push(shown.adapt(step('LLM_NEW_TOKEN', { chunk }, uuid)));
    now += everyMs;
  }
  sent.push(shown.adapt(end));
  const updates = sent.slice(1, -1).filter((s) => s !== null);
  return { sent, updates, bytes: sent.reduce((n, s) => n + (s?.payload.length ?? 0), 0) };
}

describe('StepAdaptor while a model call streams', () => {
  const byDefault = (clock: () => number) => new StepAdaptor('default', [], clock);

  it('shows the call again at most every 100 ms, with the whole output so far', () => {
    const { sent, updates } = streamed(byDefault, 'q', ['a', 'b', 'c', 'd', 'e'], 40);
    // tokens at 0, 40, 80, 120, 160 ms: shown at 0 and 120
    expect(updates.map((u) => u!.payload.split('**Output:**\n')[1])).toEqual(['a', 'abcd']);
    expect(sent.at(-1)?.payload).toMatch(/\*\*Output:\*\*\nabcde$/);
    expect(new Set(sent.filter((s) => s !== null).map((s) => s.id)).size).toBe(1);
  });

  it('sends a number of bytes linear in the output, however finely the model splits it', () => {
    const pieces = Array.from({ length: 3_000 }, () => 'xxxxxxxxxx');
    const { bytes, updates } = streamed(byDefault, 'q', pieces, 100);
    expect(updates.length).toBeGreaterThan(10);
    expect(bytes).toBeLessThan(10 * 30_000 + 300_000);
  });

  it('shows a preview of a long input in token updates, and all of it at the start and the end', () => {
    const input = 'i'.repeat(100_000);
    const { sent, updates } = streamed(byDefault, input, ['a', 'b'], 100);
    expect(updates).toHaveLength(2);
    for (const update of updates) {
      expect(update!.payload.length).toBeLessThan(2_200);
      expect(update!.payload).toContain('… (98000 more characters)');
    }
    expect(sent[0]?.payload).toContain(input);
    expect(sent.at(-1)?.payload).toContain(input);
  });

  it('shows the tokens held back at LLM_END when only LLM_NEW_TOKEN is listed', () => {
    const custom = (clock: () => number) => new StepAdaptor('custom', ['LLM_NEW_TOKEN'], clock);
    const { sent } = streamed(custom, 'q', ['a', 'b', 'c'], 10);
    expect(sent.filter((s) => s !== null).map((s) => s!.payload.split('**Output:**\n')[1])).toEqual([
      'a',
      'abc',
    ]);
  });
});

describe('StepAdaptor in custom mode', () => {
  it('shows only the listed event types', () => {
    const adaptor = new StepAdaptor('custom', ['TOOL_END', 'CUSTOM_START']);
    const tool = pair('TOOL', 'in', 'out');
    const custom = pair('CUSTOM', 'in', { note: 1 });
    const fn = pair('FUNCTION', 'in', 'out');
    expect(adaptor.adapt(tool.start)).toBeNull();
    expect(adaptor.adapt(tool.end)?.name).toBe('Tool: thing');
    expect(adaptor.adapt(custom.start)?.name).toBe('CUSTOM_START');
    expect(adaptor.adapt(custom.end)).toBeNull();
    expect(adaptor.adapt(fn.start)).toBeNull();
    expect(adaptor.adapt(fn.end)).toBeNull();
  });

  it('still shows an LLM_END whose LLM_START was filtered out, with the start input', () => {
    const adaptor = new StepAdaptor('custom', ['LLM_END']);
    const { start, end } = pair('LLM', 'the question', 'the answer');
    expect(adaptor.adapt(start)).toBeNull();
    const shown = adaptor.adapt(end);
    expect(shown?.payload).toContain('the question');
    expect(shown?.payload).toContain('the answer');
  });

  it('shows CUSTOM_START and CUSTOM_END when no types are listed', () => {
    const adaptor = new StepAdaptor('custom');
    const custom = pair('CUSTOM', 'in', 'out');
    const tool = pair('TOOL', 'in', 'out');
    expect(adaptor.adapt(custom.start)?.name).toBe('CUSTOM_START');
    expect(adaptor.adapt(custom.end)?.name).toBe('CUSTOM_END');
    expect(adaptor.adapt(tool.start)).toBeNull();
  });
});

describe('StepAdaptor off', () => {
  it('shows nothing', () => {
    const adaptor = new StepAdaptor('off', ['TOOL_START']);
    for (const type of INTERMEDIATE_STEP_TYPES) {
      expect(adaptor.adapt(step(type, { input: 'q', output: 'a' }, 'same'))).toBeNull();
    }
  });
});

describe('rawStep', () => {
  it('keeps the step type and sends the whole payload as JSON', () => {
    const s = step('TASK_START', { input: 'x' });
    const raw = rawStep(s);
    expect(raw).toMatchObject({ id: s.payload.UUID, parent_id: 'fn-1', type: 'TASK_START', name: 'thing' });
    expect(JSON.parse(raw.payload)).toEqual(s.payload);
  });
});
