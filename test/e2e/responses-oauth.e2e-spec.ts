import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { startCalendarApp, type CalendarApp } from '../utils/calendar-app';
import { OAuthBrowser } from '../utils/oauth-browser';

function sdkAs(url: string, key: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
}

function consentCall(response: OpenAI.Responses.Response): OpenAI.Responses.ResponseFunctionToolCall {
  const call = response.output.at(-1)!;
  if (call.type !== 'function_call') throw new Error(`not a function call: ${call.type}`);
  return call;
}

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The person's browser: a gateway in front of the server adds their key to every navigation too. */
const browserOf = (calendar: CalendarApp, user: string) =>
  OAuthBrowser.of(calendar.url, calendar.auth, user, { authorization: `Bearer nvapi-${user}` });

describe('Responses: an OAuth consent is a function_call named oauth_consent (real authorization server)', () => {
  let calendar: CalendarApp;
  beforeAll(async () => {
    calendar = await startCalendarApp();
  });
  afterAll(() => calendar?.close());

  it('the response ends with {auth_url, provider}; after consent in the browser, function_call_output completes the workflow', async () => {
    const sdk = sdkAs(calendar.url, 'nvapi-alice');
    const first = await sdk.responses.create({ model: 'm', input: 'who am I?' });
    expect(first.status).toBe('completed');
    const call = consentCall(first);
    expect(call).toMatchObject({ type: 'function_call', name: 'oauth_consent', status: 'completed' });
    const args = JSON.parse(call.arguments) as { auth_url: string; provider: string };
    expect(args.provider).toBe('calendar');
    expect(args.auth_url.startsWith(`${calendar.url}/auth/redirect/start?state=`)).toBe(true);

    const back = await browserOf(calendar, 'alice').complete(args.auth_url);
    expect(back.status).toBe(200);

    const second = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'done' }],
    });
    expect(second).toMatchObject({ status: 'completed', output_text: 'Hello alice' });
    // The provider's API was called with the token Alice granted, once.
    expect(calendar.auth.log.resourceCalls.filter((c) => c.sub === 'alice')).toHaveLength(1);
  });

  it('answered before the consent is done, the next response ends with the same consent call again; streamed after it, the answer streams', async () => {
    const sdk = sdkAs(calendar.url, 'nvapi-bob');
    const first = await sdk.responses.create({ model: 'm', input: 'who am I?' });
    const call = consentCall(first);

    const early = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'done' }],
    });
    expect(early.status).toBe('completed');
    expect(consentCall(early)).toMatchObject({
      name: 'oauth_consent',
      call_id: call.call_id,
      arguments: call.arguments,
    });

    await browserOf(calendar, 'bob').complete((JSON.parse(call.arguments) as { auth_url: string }).auth_url);
    const events = await collect(
      await sdk.responses.create({
        model: 'm',
        previous_response_id: early.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'done' }],
        stream: true,
      }),
    );
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { status: 'completed', previous_response_id: early.id },
    });
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(text).toBe('Hello bob');
  });

  it('a consent denied at the provider fails the workflow: the answering response is failed with the reason', async () => {
    const sdk = sdkAs(calendar.url, 'nvapi-carol');
    const first = await sdk.responses.create({ model: 'm', input: 'who am I?' });
    const call = consentCall(first);
    await browserOf(calendar, 'carol').complete(
      (JSON.parse(call.arguments) as { auth_url: string }).auth_url,
      {
        deny: true,
      },
    );
    const second = await sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'done' }],
    });
    expect(second.status).toBe('failed');
    expect(second.error?.message).toMatch(/access_denied|denied/i);
  });

  it("a wrong call_id is 400 in OpenAI's shape; another identity gets 404 for the response", async () => {
    const sdk = sdkAs(calendar.url, 'nvapi-dave');
    const first = await sdk.responses.create({ model: 'm', input: 'who am I?' });
    consentCall(first);
    const wrong = sdk.responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'oauth_not-this-one', output: 'done' }],
    });
    await expect(wrong).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(wrong).rejects.toMatchObject({ type: 'invalid_request_error', param: 'input.0.call_id' });
    const other = sdkAs(calendar.url, 'nvapi-erin').responses.create({
      model: 'm',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: consentCall(first).call_id, output: 'done' }],
    });
    await expect(other).rejects.toMatchObject({ status: 404 });
  });
});
