import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3 } from 'openapi-types';
import { ECHO_YAML, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

async function openapi(t: TestApp): Promise<OpenAPIV3.Document> {
  const res = await fetch(`${t.url}/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as OpenAPIV3.Document;
}

function bodySchemaRef(doc: OpenAPIV3.Document, path: string): string | undefined {
  const body = doc.paths[path]?.post?.requestBody as OpenAPIV3.RequestBodyObject | undefined;
  return (body?.content['application/json']?.schema as OpenAPIV3.ReferenceObject | undefined)?.$ref;
}

describe('OpenAPI', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it('/openapi.json is a valid OpenAPI 3 document (checked by swagger-parser)', async () => {
    const doc = await openapi(t);
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('lists every route with request and response schemas', async () => {
    const doc = await openapi(t);
    for (const path of [
      '/v1/workflow',
      '/v1/workflow/stream',
      '/v1/workflow/full',
      '/generate',
      '/generate/stream',
      '/generate/full',
      '/v1/chat',
      '/v1/chat/stream',
      '/chat',
      '/chat/stream',
      '/v1/chat/completions',
    ]) {
      const op = doc.paths[path]?.post;
      expect(op).toBeDefined();
      expect(op?.requestBody).toBeDefined();
      expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '422']));
    }
    expect(doc.paths['/health']?.get).toBeDefined();
    const operationIds = Object.values(doc.paths).flatMap((p) =>
      Object.values(p ?? {}).map((o) => (o as { operationId?: string }).operationId),
    );
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('every route that answers with an Observability-Trace-Id header declares it', async () => {
    const doc = await openapi(t);
    const res = await fetch(`${t.url}/v1/workflow`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' }),
    });
    expect(res.headers.get('observability-trace-id')).toBeTruthy();
    for (const path of [
      '/v1/workflow',
      '/v1/workflow/stream',
      '/v1/workflow/full',
      '/generate',
      '/generate/stream',
      '/generate/full',
      '/v1/chat',
      '/v1/chat/stream',
      '/chat',
      '/chat/stream',
      '/v1/chat/completions',
    ]) {
      const responses = doc.paths[path]?.post?.responses ?? {};
      const declared = ['200', '202']
        .filter((status) => responses[status])
        .map((status) => (responses[status] as OpenAPIV3.ResponseObject).headers?.['Observability-Trace-Id']);
      expect({ path, declared }).toEqual({
        path,
        declared: declared.map(() => expect.objectContaining({ schema: { type: 'string' } })),
      });
      expect(declared.length).toBeGreaterThan(0);
    }
    const status = doc.paths['/executions/{id}']?.get?.responses['200'] as OpenAPIV3.ResponseObject;
    expect(status.headers?.['Observability-Trace-Id']).toBeUndefined();
  });

  it("the generate routes carry the configured workflow's input schema", async () => {
    const doc = await openapi(t);
    expect(bodySchemaRef(doc, '/v1/workflow')).toBe('#/components/schemas/EchoInputDto');
    const schema = doc.components?.schemas?.EchoInputDto as OpenAPIV3.SchemaObject;
    expect(schema.required).toEqual(['message']);
    expect(bodySchemaRef(doc, '/v1/chat')).toBe('#/components/schemas/ChatRequestDto');
  });

  it('a scripted workflow documents NAT agent input', async () => {
    const s = await startApp(scriptedYaml(`- stream: { text: hi }`));
    try {
      const doc = await openapi(s);
      expect(bodySchemaRef(doc, '/generate/stream')).toBe('#/components/schemas/ScriptedInputDto');
      const schema = doc.components?.schemas?.ScriptedInputDto as OpenAPIV3.SchemaObject;
      expect(Object.keys(schema.properties ?? {})).toEqual(['input_message', 'messages']);
    } finally {
      await s.close();
    }
  });

  it('/docs serves Swagger UI', async () => {
    const res = await fetch(`${t.url}/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('swagger-ui');
  });

  it('routes set to null are gone, from the server and the document', async () => {
    const s = await startApp(
      `general:\n  front_end:\n    disable_legacy_routes: true\n    ag_ui_path: null\n    a2a_path: null\n    responses_path: null\n    workflow: { openai_api_v1_path: null }\n${ECHO_YAML}`,
    );
    try {
      const doc = await openapi(s);
      expect(Object.keys(doc.paths).sort()).toEqual(
        [
          '/auth/redirect',
          '/auth/redirect/start',
          '/conversations',
          '/conversations/{id}',
          '/executions',
          '/evaluate/item',
          '/executions/{id}',
          '/executions/{id}/interactions/{interactionId}/response',
          '/executions/{id}/stream',
          '/feedback',
          '/health',
          '/health/ready',
          '/mcp/client/tool/list',
          '/mcp/client/tool/list/per_user',
          '/metrics',
          '/v1/chat',
          '/v1/chat/stream',
          '/v1/workflow',
          '/v1/workflow/full',
          '/v1/workflow/stream',
          '/v1/workflow/async',
          '/v1/workflow/async/job/{job_id}',
          '/v1/workflow/async/jobs',
          '/evaluate',
          '/evaluate/job/last',
          '/evaluate/job/{job_id}',
          '/evaluate/jobs',
        ].sort(),
      );
      const res = await fetch(`${s.url}/generate`, { method: 'POST' });
      expect(res.status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
