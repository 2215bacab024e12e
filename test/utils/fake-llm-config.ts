import { stringify } from 'yaml';
import { FakeLlm } from './fake-llm';
import { startApp, type TestApp } from './test-app';

/** A config whose `llms.model` is the fake LLM (no retries unless asked), as YAML. */
export function agentYaml(
  llm: FakeLlm,
  workflow: Record<string, unknown>,
  functions: Record<string, unknown> = {},
  model: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): string {
  return stringify({
    llms: {
      model: {
        _type: 'openai',
        base_url: llm.url,
        model_name: 'fake-model',
        api_key: 'test-key',
        max_retries: 0,
        ...model,
      },
    },
    functions,
    workflow: { llm_name: 'model', ...workflow },
    ...extra,
  });
}

/** The built-in tools most tests give their agent. */
export const CALCULATOR = { calculator: { _type: 'calculator' } };

/**
 * A suite's app against a fake model: both started before its tests (the config built from the
 * model's URL) and closed after them; after each test, no scripted reply may be left unused.
 * `started` hands both to the suite's own variables.
 */
export function appWithFakeLlm(
  yaml: (llm: FakeLlm) => string,
  started: (llm: FakeLlm, app: TestApp) => void,
): void {
  let llm: FakeLlm | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    app = await startApp(yaml(llm));
    started(llm, app);
  });
  afterEach(() => {
    expect(llm!.pending).toBe(0);
    llm!.reset();
  });
  afterAll(async () => {
    await app?.close();
    await llm?.close();
  });
}

/**
 * A fake model for the whole suite and an app of its own for each test (each test's config differs):
 * `start(yaml)` starts the test's app, closed after the test once no scripted reply is left unused.
 * `started` hands the model to the suite's own variable.
 */
export function appPerTestWithFakeLlm(started: (llm: FakeLlm) => void): {
  start(yaml: string): Promise<TestApp>;
} {
  let llm: FakeLlm | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    started(llm);
  });
  afterEach(async () => {
    const unused = llm!.pending;
    llm!.reset();
    await app?.close();
    app = undefined;
    expect(unused).toBe(0);
  });
  afterAll(async () => {
    await llm?.close();
  });
  return {
    start: async (yaml) => (app = await startApp(yaml)),
  };
}
