import OpenAI from 'openai';
import { startReplicas, type Replicas } from '../utils/replica-apps';
import { requires } from '../utils/requires';
import { scriptedYaml, type TestApp } from '../utils/test-app';

const WORKFLOW = scriptedYaml(
  `- stream: { text: 'Hi {{input}}. ' }
- prompt: { input_type: text, text: 'Your city?', save_as: city }`,
  'See you in {{city}}, {{input}}',
);

const sdkOn = (t: TestApp, key: string) => new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0 });

requires('postgres')('Responses on two replicas (PostgreSQL store, Redis)', () => {
  let replicas: Replicas;
  beforeAll(async () => {
    replicas = await startReplicas(2, WORKFLOW);
  }, 60_000);
  afterAll(() => replicas?.close());

  it('a response created on A is read and continued on B; its function call is answered there; others get 404', async () => {
    const [a, b] = replicas.apps;
    const first = await sdkOn(a, 'nvapi-dana').responses.create({ model: 'm', input: 'Dana' });
    const call = first.output.at(-1) as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', name: 'human_input' });

    const onB = sdkOn(b, 'nvapi-dana');
    expect(await onB.responses.retrieve(first.id)).toMatchObject({ id: first.id, output: first.output });
    await expect(sdkOn(b, 'nvapi-eve').responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    const items = await onB.responses.inputItems.list(first.id);
    expect(items.data).toHaveLength(1);

    const second = await onB.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'Oslo' }],
    });
    expect(second).toMatchObject({ status: 'completed', output_text: 'See you in Oslo, Dana' });
    expect((await sdkOn(a, 'nvapi-dana').responses.retrieve(second.id)).output_text).toBe(
      'See you in Oslo, Dana',
    );
  });
});
