import type { Part } from '@a2a-js/sdk';
import {
  a2aClient,
  aDataPart,
  aFilePart,
  aSend,
  asTask,
  aTextPart,
  aUserMessage,
  stateOf,
  texts,
} from '../utils/a2a-client';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import type { TestApp } from '../utils/test-app';

/** The start of a PDF: its bytes are handed on, never read. */
const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\n1 0 obj\n<<>>\nendobj\n', 'latin1');

describe('A2A: a document file part reaches an LLM agent as an OpenAI file part', () => {
  let llm: FakeLlm;
  let t: TestApp;
  const attachments = { general: { front_end: { attachments: { max_bytes: 64 } } } };
  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent' }, {}, {}, attachments),
    (model, app) => ((llm = model), (t = app)),
  );

  it('the agent card lists the image and file types it reads as input modes', async () => {
    const card = await (await a2aClient(t.url)).getAgentCard();
    expect(card.defaultInputModes).toEqual(
      expect.arrayContaining(['text/plain', 'image/png', 'application/pdf']),
    );
    expect(card.skills[0].inputModes).toEqual(card.defaultInputModes);
    expect(card.defaultOutputModes).toEqual(['text/plain', 'application/json']);
  });

  it('a PDF as inline bytes: the model receives the text and a file part with its data and name', async () => {
    llm.script(reply.text('A report.'));
    const client = await a2aClient(t.url);
    const pdf = aFilePart({ $case: 'raw', value: PDF }, 'application/pdf', 'report (final).pdf');
    const task = asTask(await client.sendMessage(aSend(aUserMessage([aTextPart('Summarise'), pdf]))));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.artifacts[0].parts).join('')).toBe('A report.');
    expect(llm.requests[0].body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Summarise' },
        {
          type: 'file',
          file: {
            file_data: `data:application/pdf;base64,${PDF.toString('base64')}`,
            filename: 'report (final).pdf',
          },
        },
      ],
    });
  });

  it('a CSV without a name, its type with parameters, beside a data part: named after its type, in order', async () => {
    llm.script(reply.text('Two rows.'));
    const client = await a2aClient(t.url);
    const csv = Buffer.from('a,b\n1,2\n');
    const file = aFilePart({ $case: 'raw', value: csv }, 'Text/CSV; charset=utf-8', '');
    const parts = [aTextPart('Count'), file, aDataPart({ header: true })];
    const task = asTask(await client.sendMessage(aSend(aUserMessage(parts))));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(llm.requests[0].body.messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'Count' },
      {
        type: 'file',
        file: { file_data: `data:text/csv;base64,${csv.toString('base64')}`, filename: 'attachment-1.csv' },
      },
      { type: 'text', text: '{"header":true}' },
    ]);
  });

  it('raw bytes in URL-safe base64 without padding (as proto3 JSON allows) reach the model unchanged', async () => {
    llm.script(reply.text('Read.'));
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x61]);
    const part = { raw: bytes.toString('base64url'), mediaType: 'text/plain', filename: 'b.txt' };
    const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'Read' }, part] };
    const res = await fetch(`${t.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
    });
    const body = (await res.json()) as { result?: unknown; error?: unknown };
    expect(body.error).toBeUndefined();
    expect(llm.requests[0].body.messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'Read' },
      {
        type: 'file',
        file: { file_data: `data:text/plain;base64,${bytes.toString('base64')}`, filename: 'b.txt' },
      },
    ]);
  });

  it('a type not accepted is -32005; too many bytes or a name with control characters are -32602', async () => {
    const client = await a2aClient(t.url);
    const send = (file: Part) => client.sendMessage(aSend(aUserMessage([aTextPart('x'), file])));
    const html = aFilePart({ $case: 'raw', value: Buffer.from('<script>') }, 'text/html', 'page.html');
    await expect(send(html)).rejects.toMatchObject({
      name: 'ContentTypeNotSupportedError',
      message: expect.stringContaining(
        'Part 1 (page.html): file type "text/html" is not accepted (accepted: application/pdf,',
      ),
    });
    const big = aFilePart({ $case: 'raw', value: Buffer.alloc(65, 'a') }, 'text/plain', 'big.txt');
    await expect(send(big)).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('Part 1 (big.txt): file is 65 bytes, over the limit of 64'),
    });
    const forged = aFilePart({ $case: 'raw', value: Buffer.from('x') }, 'text/plain', 'a.txt\r\nX-Evil: 1');
    await expect(send(forged)).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('Part 1: the file name holds a control character'),
    });
    const long = aFilePart({ $case: 'raw', value: Buffer.from('x') }, 'text/plain', `${'n'.repeat(256)}.txt`);
    await expect(send(long)).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('Part 1: the file name is 260 characters, over the limit of 255'),
    });
    const url = aFilePart(
      { $case: 'url', value: 'https://example.com/report.pdf' },
      'application/pdf',
      'r.pdf',
    );
    await expect(send(url)).rejects.toMatchObject({ name: 'ContentTypeNotSupportedError' });
    expect(llm.requests).toHaveLength(0);
  });
});
