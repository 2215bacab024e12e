import type { OpenAPIV3 } from 'openapi-types';
import { dataOf, postStream } from '../utils/sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const YAML = `general:
  front_end:
    endpoints:
      - { method: POST, path: /tools/shout, description: Echo it back, function_name: shout }
      - { method: GET, path: /tools/ping, description: Echo from the query, function_name: shout }
      - { method: PUT, path: /tools/put, description: Echo by PUT, function_name: shout }
functions:
  shout: { _type: echo }
${scriptedYaml(`- stream: { text: 'main workflow' }`, 'main workflow')}`;

describe('general.front_end.endpoints: functions served at their own paths, as NAT does', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(YAML)));
  afterAll(() => t.close());

  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("runs the named function, not the workflow, with the function's input and output", async () => {
    const res = await send('POST', '/tools/shout', { message: 'hello endpoint' });
    expect(res.status).toBe(200);
    expect(res.headers.get('observability-trace-id')).toBeTruthy();
    expect(await res.json()).toEqual({ value: 'hello endpoint' });
    const main = await send('POST', '/v1/workflow', { input_message: 'x' });
    expect(await main.json()).toEqual({ value: 'main workflow' });
  });

  // The 422 for a body that does not fit the function's input: src/workflows/generate.controller.spec.ts.
  it('streams at <path>/stream and <path>/full', async () => {
    for (const suffix of ['/stream', '/full']) {
      const res = await postStream(`${t.url}/tools/shout${suffix}`, { message: 'streamed words' });
      expect(res.status).toBe(200);
      const text = dataOf(res)
        .map((d) => (d as { value: string }).value)
        .join('');
      expect(text).toBe('streamed words');
    }
  });

  it('serves the configured method: GET takes its input from the query, PUT from the body', async () => {
    const get = await send('GET', '/tools/ping?message=pong');
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ value: 'pong' });
    const put = await send('PUT', '/tools/put', { message: 'put it' });
    expect(await put.json()).toEqual({ value: 'put it' });
    expect((await send('POST', '/tools/ping', { message: 'x' })).status).toBe(405);
  });

  it('documents each endpoint in OpenAPI with its method and the function input', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenAPIV3.Document;
    const post = doc.paths['/tools/shout']?.post;
    expect(post?.summary).toBe('Echo it back');
    expect((post?.requestBody as OpenAPIV3.RequestBodyObject).content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/EchoInputDto',
    });
    expect(doc.paths['/tools/shout/stream']?.post).toBeDefined();
    const get = doc.paths['/tools/ping']?.get;
    expect((get?.parameters as OpenAPIV3.ParameterObject[]).map((p) => [p.name, p.in])).toEqual([
      ['message', 'query'],
    ]);
    expect(doc.paths['/tools/put']?.put).toBeDefined();
  });
});

/** NAT's simple_calculator_custom_routes config-metadata: current_request_attributes behind a route. */
describe('current_request_attributes served at a general.front_end.endpoints route', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await startApp(`general:
  front_end:
    endpoints:
      - { path: /get_request_metadata, method: POST, description: Gets the request attributes, function_name: current_request_attributes }
functions:
  current_request_attributes: { _type: current_request_attributes }
${scriptedYaml(`- stream: { text: 'main workflow' }`, 'main workflow')}`)),
  );
  afterAll(() => t.close());

  it("answers with NAT's labels: the method, path, headers, query and body, never the credentials", async () => {
    const res = await fetch(`${t.url}/get_request_metadata?unit=cm`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-custom': 'tea',
        'conversation-id': 'conv-42',
        authorization: 'Bearer sekrit-token',
        cookie: 'session=sekrit-cookie',
      },
      body: JSON.stringify({ length: 3 }),
    });
    expect(res.status).toBe(200);
    const { value } = (await res.json()) as { value: string };
    expect(value).toMatch(
      /^Method: POST, URL Path: \/get_request_metadata, URL Scheme: None, Headers: \{.*"x-custom":"tea".*\}, Query Params: \{"unit":"cm"\}, Path Params: None, Client Host: \S+, Client Port: None, Cookies: \{\}, Conversation Id: conv-42, Request Body: \{"length":3\}$/,
    );
    expect(value).not.toMatch(/sekrit/);
  });
});
