import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageFiles, pageAttachments } from './page-files';

const NO_TEXT = { title: 'echo', description: '', examples: [], attachments: null };

describe('PageFiles', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'interlude-page-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<body data-root-path="%ROOT_PATH%" data-websocket-path="%WEBSOCKET_PATH%" data-workflow-path="%WORKFLOW_PATH%"' +
        ' data-title="%TITLE%" data-description="%DESCRIPTION%" data-examples="%EXAMPLES%"' +
        ' data-attachments="%ATTACHMENTS%">',
    );
    writeFileSync(join(dir, 'icon.svg'), '<svg/>');
    writeFileSync(join(dir, 'assets', 'main-ABC.js'), 'x');
    writeFileSync(join(dir, 'assets', 'notes.txt'), 'not served');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('tells the page where the routes are and what it serves, escaped for an attribute', () => {
    const files = new PageFiles(
      {
        rootPath: '/a"b',
        websocket: null,
        workflow: "/v1/it's",
        title: '<script>alert(1)</script>',
        description: 'Fish & "chips"',
        examples: ['Say "hi"', "it's <b>"],
        attachments: { types: ['image/png'], maxBytes: 10 },
      },
      dir,
    );
    expect(files.get('index.html')?.body.toString()).toBe(
      '<body data-root-path="/a&#34;b" data-websocket-path="" data-workflow-path="/v1/it&#39;s"' +
        ' data-title="&#60;script&#62;alert(1)&#60;/script&#62;" data-description="Fish &#38; &#34;chips&#34;"' +
        ' data-examples="[&#34;Say \\&#34;hi\\&#34;&#34;,&#34;it&#39;s &#60;b&#62;&#34;]"' +
        ' data-attachments="{&#34;types&#34;:[&#34;image/png&#34;],&#34;maxBytes&#34;:10}">',
    );
  });

  it('offers attachments only for a workflow that reads images, no bigger than a WebSocket message carries', () => {
    expect(pageAttachments(undefined, 1024 * 1024)).toBeNull();
    const images = { types: ['image/png'], maxBytes: 5 * 1024 * 1024 };
    expect(pageAttachments(images, 1024 * 1024)).toEqual({ types: ['image/png'], maxBytes: 774_144 });
    expect(pageAttachments({ ...images, maxBytes: 1000 }, 1024 * 1024)?.maxBytes).toBe(1000);
  });

  it('serves only the built files it knows the type of; hashed assets are immutable', () => {
    const files = new PageFiles({ ...NO_TEXT, rootPath: '', websocket: '/websocket', workflow: null }, dir);
    expect(files.get('assets/main-ABC.js')).toMatchObject({
      type: 'text/javascript; charset=utf-8',
      immutable: true,
    });
    expect(files.get('icon.svg')).toMatchObject({ type: 'image/svg+xml', immutable: false });
    expect(files.get('assets/notes.txt')).toBeUndefined();
    expect(files.get('../package.json')).toBeUndefined();
  });

  it('is empty when the page was never built', () => {
    expect(new PageFiles({ ...NO_TEXT, rootPath: '', websocket: null, workflow: null }, null).built).toBe(
      false,
    );
  });
});
