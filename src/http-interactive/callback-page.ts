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

/**
 * The page an anonymous flow's start link shows before it goes to the provider: it names the workflow
 * and the provider and asks the person to confirm that they started it. No script; the form posts the
 * page's single-use token back to the start link (its `form-action` allows the provider too, where the
 * confirmed post is redirected).
 */
export function confirmPage(page: { workflow: string; provider: string; token: string }): string {
  const provider = escapeHtml(page.provider);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Authorize ${provider}?</title></head>
<body>
<h1>Authorize ${provider}?</h1>
<p>The workflow <strong>${escapeHtml(page.workflow)}</strong> asks to act with your <strong>${provider}</strong> account.</p>
<p>Whoever started it was not signed in, so this server cannot tell who gets what it does with your account. Continue only if you started it yourself, just now. If someone sent you this link, close this window.</p>
<form method="post">
<input type="hidden" name="confirm" value="${escapeHtml(page.token)}">
<button type="submit">Continue to ${provider}</button>
</form>
</body>
</html>
`;
}

/** The CSP of the confirmation page: nothing loads or runs; its form goes here, then to the provider. */
export function confirmPagePolicy(providerOrigin: string): string {
  return [
    "default-src 'none'",
    "base-uri 'none'",
    `form-action 'self' ${providerOrigin}`,
    "frame-ancestors 'none'",
  ].join('; ');
}
