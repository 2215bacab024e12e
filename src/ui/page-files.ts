import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** One built file of the page, read once: its bytes, type and validator. */
export interface PageFile {
  body: Buffer;
  type: string;
  etag: string;
  /** Hashed names never change content, so browsers may keep them for good. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Where `npm run build` puts the page: dist/public, beside the compiled server (or above src/ in tests). */
function publicDir(): string | null {
  const candidates = [join(__dirname, '..', 'public'), join(__dirname, '..', '..', 'dist', 'public')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

/** What index.html learns from the config: where the server's routes are, and what it serves. */
export interface PageSettings {
  rootPath: string;
  websocket: string | null;
  workflow: string | null;
  /** The empty conversation's heading, description and one-click questions. */
  title: string;
  description: string;
  examples: string[];
  /** The images a message may carry (types, most bytes of one), or null when the workflow reads none. */
  attachments: { types: string[]; maxBytes: number } | null;
}

/**
 * What the page may attach: the workflow's image limits, the size held to what one WebSocket message
 * carries (base64 grows bytes by a third; 16 KiB left for the rest of the message).
 */
export function pageAttachments(
  images: { types: string[]; maxBytes: number } | undefined,
  websocketMaxMessageBytes: number,
): PageSettings['attachments'] {
  if (!images) return null;
  const fits = Math.floor(((websocketMaxMessageBytes - 16 * 1024) * 3) / 4);
  return fits > 0 ? { types: images.types, maxBytes: Math.min(images.maxBytes, fits) } : null;
}

const escapeAttribute = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page's files, loaded at start-up into memory (a few hundred KiB): only these names are ever
 * served, so no request path reaches the file system.
 */
export class PageFiles {
  private readonly files = new Map<string, PageFile>();

  constructor(settings: PageSettings, dir: string | null = publicDir()) {
    if (dir === null) return;
    this.load(dir, 'index.html', false, 'index.html', (html) =>
      html
        .replace('%ROOT_PATH%', escapeAttribute(settings.rootPath))
        .replace('%WEBSOCKET_PATH%', escapeAttribute(settings.websocket ?? ''))
        .replace('%WORKFLOW_PATH%', escapeAttribute(settings.workflow ?? ''))
        .replace('%TITLE%', escapeAttribute(settings.title))
        .replace('%DESCRIPTION%', escapeAttribute(settings.description))
        .replace('%EXAMPLES%', escapeAttribute(JSON.stringify(settings.examples)))
        .replace('%ATTACHMENTS%', escapeAttribute(JSON.stringify(settings.attachments))),
    );
    this.load(dir, 'icon.svg', false);
    const assets = join(dir, 'assets');
    if (existsSync(assets)) {
      for (const name of readdirSync(assets)) this.load(assets, name, true, `assets/${name}`);
    }
  }

  get built(): boolean {
    return this.files.has('index.html');
  }

  get(name: string): PageFile | undefined {
    return this.files.get(name);
  }

  private load(
    dir: string,
    name: string,
    immutable: boolean,
    key = name,
    transform?: (text: string) => string,
  ): void {
    const type = TYPES[extname(name)];
    const path = join(dir, name);
    if (!type || !existsSync(path)) return;
    const body = transform ? Buffer.from(transform(readFileSync(path, 'utf8'))) : readFileSync(path);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    this.files.set(key, { body, type, etag, immutable });
  }
}
