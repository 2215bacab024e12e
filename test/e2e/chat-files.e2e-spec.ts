import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';
import { isComplete, WsClient } from '../utils/ws-client';

const PDF_BASE64 = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n', 'latin1').toString('base64');
const PDF = `data:application/pdf;base64,${PDF_BASE64}`;

const file = (file_data: string, filename?: string) => ({
  type: 'file',
  file: filename === undefined ? { file_data } : { file_data, filename },
});
const userWith = (...parts: unknown[]) => ({
  role: 'user',
  content: [{ type: 'text', text: 'Summarise' }, ...parts],
});

describe('files in a chat reach the model of an LLM agent as OpenAI file parts', () => {
  let llm: FakeLlm;
  let t: TestApp;
  const attachments = { general: { front_end: { attachments: { max_bytes: 2048 } } } };
  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent' }, {}, {}, attachments),
    (model, app) => ((llm = model), (t = app)),
  );

  it('/v1/chat/completions (openai SDK): the model receives the text and the file, its data and name', async () => {
    llm.script(reply.text('A short report.'));
    const sdk = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const completion = await sdk.chat.completions.create({
      model: 'any',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Summarise' },
            { type: 'file', file: { file_data: PDF, filename: 'report.pdf' } },
          ],
        },
      ],
    });
    expect(completion.choices[0].message.content).toBe('A short report.');
    expect(llm.userContent()).toEqual([
      { type: 'text', text: 'Summarise' },
      { type: 'file', file: { file_data: PDF, filename: 'report.pdf' } },
    ]);
  });

  it('/v1/workflow with messages: a file without a name goes under one made from its type', async () => {
    llm.script(reply.text('done'));
    const csv = `data:text/csv;base64,${Buffer.from('a,b\n1,2\n').toString('base64')}`;
    const res = await postJson(`${t.url}/v1/workflow`, { messages: [userWith(file(csv))] });
    expect(res.json).toEqual({ value: 'done' });
    expect(llm.userContent()).toEqual([
      { type: 'text', text: 'Summarise' },
      { type: 'file', file: { file_data: csv, filename: 'attachment-1.csv' } },
    ]);
  });

  it('a WebSocket user_message of a file alone (generate schema) carries it to the model', async () => {
    llm.script(reply.text('A report, over the socket.'));
    const ws = await WsClient.connect(t.url);
    try {
      ws.send({
        type: 'user_message',
        schema_type: 'generate',
        id: randomUUID(),
        content: { messages: [{ role: 'user', content: [file(PDF, 'report.pdf')] }] },
      });
      expect(JSON.stringify(await ws.until(isComplete))).toContain('A report, over the socket.');
    } finally {
      ws.close();
    }
    expect(llm.userContent()).toEqual([{ type: 'file', file: { file_data: PDF, filename: 'report.pdf' } }]);
  });

  it('the LLM_START step shows the file without its bytes', async () => {
    llm.script(reply.text('seen'));
    const res = await fetch(`${t.url}/v1/workflow/full`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [userWith(file(PDF, 'report.pdf'))] }),
    });
    const text = await res.text();
    expect(text).toContain('LLM_START');
    expect(text).toContain('data:application/pdf;base64,… (');
    expect(text).not.toContain(PDF_BASE64);
  });

  describe('refused with 422 and where (the model is not called)', () => {
    const refused = async (part: unknown, role = 'user') => {
      const message = role === 'user' ? userWith(part) : { role, content: [part] };
      const messages = role === 'user' ? [message] : [message, { role: 'user', content: 'and?' }];
      const res = await postJson(`${t.url}/v1/chat`, { messages });
      expect(res.status).toBe(422);
      expect(llm.requests).toHaveLength(0);
      return (res.json as { detail: { loc: unknown[]; msg: string }[] }).detail;
    };

    it('a type not accepted', async () => {
      const html = `data:text/html;base64,${Buffer.from('<script>alert(1)</script>').toString('base64')}`;
      expect(await refused(file(html, 'x.html'))).toEqual([
        expect.objectContaining({
          loc: ['body', 'messages', 0, 'content', 1, 'file', 'file_data'],
          msg: expect.stringContaining('file type "text/html" is not accepted'),
        }),
      ]);
    });

    it('a file over max_bytes, and data that is not base64', async () => {
      const big = `data:text/plain;base64,${Buffer.alloc(3000).toString('base64')}`;
      expect((await refused(file(big, 'big.txt')))[0].msg).toBe('file is 3000 bytes, over the limit of 2048');
      expect((await refused(file('data:text/plain;base64,@@@@', 'a.txt')))[0].msg).toContain('not base64');
    });

    it('a URL or an uploaded file id: the server fetches nothing a client names', async () => {
      expect((await refused(file('https://example.com/a.pdf', 'a.pdf')))[0].msg).toContain(
        'only inline files are accepted',
      );
      const [issue] = await refused({ type: 'file', file: { file_id: 'file-abc' } });
      expect(issue).toMatchObject({
        loc: ['body', 'messages', 0, 'content', 1, 'file', 'file_data'],
        msg: 'file.file_data should be a data: URL string',
      });
    });

    it('a name with control characters or over 255 characters, and a file on an assistant message', async () => {
      expect(await refused(file(PDF, 'a.pdf\r\nX-Evil: 1'))).toEqual([
        expect.objectContaining({
          loc: ['body', 'messages', 0, 'content', 1, 'file', 'filename'],
          msg: 'the file name holds a control character',
        }),
      ]);
      expect((await refused(file(PDF, 'n'.repeat(256))))[0].msg).toContain('over the limit of 255');
      expect((await refused(file(PDF, 'a.pdf'), 'assistant'))[0].msg).toBe(
        'files are accepted on user messages only',
      );
    });

    it('/v1/chat/completions answers 400 in OpenAI error shape, naming the field', async () => {
      const res = await postJson(`${t.url}/v1/chat/completions`, {
        messages: [userWith(file('data:application/zip;base64,UEsDBA==', 'a.zip'))],
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: expect.objectContaining({
          message: expect.stringContaining('file type "application/zip" is not accepted'),
          param: expect.stringContaining('messages'),
        }),
      });
      expect(llm.requests).toHaveLength(0);
    });
  });
});

describe('a file in a chat to a workflow that reads none', () => {
  it('is refused with 422, and with an empty file_types on an LLM agent too', async () => {
    const llm = await FakeLlm.start();
    const attachments = { general: { front_end: { attachments: { file_types: [] } } } };
    const t = await startApp(agentYaml(llm, { _type: 'tool_calling_agent' }, {}, {}, attachments));
    try {
      const res = await postJson(`${t.url}/v1/chat`, { messages: [userWith(file(PDF, 'a.pdf'))] });
      expect(res.status).toBe(422);
      expect((res.json as { detail: { msg: string }[] }).detail[0].msg).toBe(
        'this workflow reads no files: send text only',
      );
      expect(llm.requests).toHaveLength(0);
    } finally {
      await t.close();
      await llm.close();
    }
  });
});
