import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeLlm } from './fake-llm';
import { agentYaml } from './fake-llm-config';

/** The API a guarded tool changes: records each POST body and answers 201 with a ticket id. */
export async function startTicketApi(): Promise<{
  url: string;
  created: unknown[];
  close: () => Promise<void>;
}> {
  const created: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      created.push(JSON.parse(raw || 'null') as unknown);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: created.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    created,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A tool_calling_agent on the fake model with ask_confirmation, ask_question and create_ticket. */
export function ticketAgentYaml(llm: FakeLlm, apiUrl: string, extra: Record<string, unknown> = {}): string {
  const functions = {
    ask_confirmation: { _type: 'ask_confirmation' },
    ask_question: { _type: 'ask_question' },
    create_ticket: {
      _type: 'http_request',
      method: 'POST',
      url: `${apiUrl}/tickets`,
      description: 'Creates a ticket',
    },
  };
  return agentYaml(
    llm,
    { _type: 'tool_calling_agent', tool_names: Object.keys(functions) },
    functions,
    {},
    { general: { outbound: { allow_hosts: ['127.0.0.1'] } }, ...extra },
  );
}
