import type { Request, Response } from 'express';
import type { PageFile } from './page-files';

/**
 * The page runs only its own bundled script and stylesheet and talks only to this server (HTTP and
 * the WebSocket face, which 'self' covers): model output rendered into it can load nothing from
 * anywhere else, and inline script or style never runs.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // data: for the thumbnails of images a person attaches (read by the page itself, never fetched).
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Writes one page file with its CSP and caching headers (304 when the browser's copy is current). */
export function sendPageFile(req: Request, res: Response, file: PageFile): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Content-Type', file.type);
  res.setHeader('ETag', file.etag);
  res.setHeader('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  if (req.headers['if-none-match'] === file.etag) {
    res.status(304).end();
    return;
  }
  res.status(200).end(req.method === 'HEAD' ? undefined : file.body);
}
