/**
 * A URL as it may be shown to a caller or in a step: no userinfo, no query string, no fragment (a
 * configured `?api-key=${…}` or `https://user:pass@host` must never reach an error message).
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    const text = String(url);
    const cut = [text.indexOf('?'), text.indexOf('#')].filter((i) => i >= 0);
    const at = text.indexOf('@');
    const kept = cut.length ? text.slice(0, Math.min(...cut)) : text;
    return at >= 0 && (cut.length === 0 || at < Math.min(...cut)) ? kept.slice(at + 1) : kept;
  }
  const query = parsed.search ? '?…' : '';
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${query}`;
}

const URL_END = new Set([' ', '\t', '\n', '\r', '"', "'", '<', '>', '`', ')']);

/** Free text (an upstream or library error) with every http(s) URL in it redacted; a linear scan. */
export function redactUrlsIn(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const https = text.indexOf('https://', from);
    const http = text.indexOf('http://', from);
    const at = https < 0 ? http : http < 0 ? https : Math.min(http, https);
    if (at < 0) return out + text.slice(from);
    let end = at;
    while (end < text.length && !URL_END.has(text[end])) end++;
    out += text.slice(from, at) + redactUrl(text.slice(at, end));
    from = end;
  }
}
