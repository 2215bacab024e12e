import { build } from 'esbuild';

/** The page's script: `@ag-ui/client` bundled for the browser, with a tiny approval UI around it. */
const PAGE_SCRIPT = `
import { HttpAgent } from '@ag-ui/client';

const log = (line) => {
  const li = document.createElement('li');
  li.textContent = line;
  document.getElementById('events').appendChild(li);
};

async function main() {
  const agent = new HttpAgent({ url: '/v1/ag-ui' });
  agent.subscribe({ onEvent: ({ event }) => log(event.type) });
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'File a ticket about the printer jam' });
  await agent.runAgent();
  const [interrupt] = agent.pendingInterrupts;
  const ask = document.getElementById('ask');
  ask.textContent = interrupt.message;
  const approve = document.createElement('button');
  approve.id = 'approve';
  approve.textContent = 'Approve';
  approve.onclick = async () => {
    approve.disabled = true;
    await agent.runAgent({
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    const answer = agent.messages.filter((m) => m.role === 'assistant' && m.content).at(-1);
    document.getElementById('answer').textContent = answer.content;
    document.getElementById('pending').textContent = String(agent.pendingInterrupts.length);
  };
  ask.after(approve);
}
main().catch((err) => (document.getElementById('error').textContent = String(err)));
`;

/** The approval page: HTML with the bundled client inlined. */
export async function approvalPage(): Promise<string> {
  const bundle = await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const js = bundle.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html><html><head><meta charset="utf-8"><title>AG-UI approval</title></head>
<body><p id="ask"></p><p id="answer"></p><p id="pending"></p><p id="error"></p><ol id="events"></ol>
<script>${js}</script></body></html>`;
}
