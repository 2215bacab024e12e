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
