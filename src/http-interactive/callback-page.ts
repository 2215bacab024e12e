function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside a `<script>` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * The origins the callback page may tell: the configured CORS origins and the public base URL. `*` is
 * never one of them, so the success message (and that a flow completed) goes to no other site.
 */
export function openerOrigins(allowOrigins: readonly string[], publicBaseUrl: string | undefined): string[] {
  const origins = new Set<string>();
  for (const candidate of [...allowOrigins, ...(publicBaseUrl ? [publicBaseUrl] : [])]) {
    try {
      const url = new URL(candidate);
      if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin);
    } catch {
      // '*', 'null' and other non-URLs name no origin to post to.
    }
  }
  return [...origins];
}

/**
 * The page the provider's redirect lands on. On success it tells the window that opened it
 * (`{type: "AUTH_SUCCESS"}`, as NeMo Agent Toolkit's UI expects) and closes itself. The message is
 * posted to each configured origin and the page's own: postMessage delivers only where the opener's
 * origin matches, so a window of another site that opened the link learns nothing.
 */
export function callbackPage(success: boolean, message: string, origins: readonly string[] = []): string {
  const script = success
    ? `<script>
  (function () {
    if (!window.opener) return;
    var origins = ${scriptJson(origins)}.concat([window.location.origin]);
    for (var i = 0; i < origins.length; i++) {
      window.opener.postMessage({ type: 'AUTH_SUCCESS' }, origins[i]);
    }
  })();
  setTimeout(function () { window.close(); }, 500);
</script>`
    : '';
  const title = success ? 'Authentication complete' : 'Authentication failed';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body>
<h1>${title}</h1>
<p>${escapeHtml(message)}</p>
${script}
</body>
</html>
`;
}
