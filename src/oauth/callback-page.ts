function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The page the provider's redirect lands on. On success it tells the window that opened it
 * (`{type: "AUTH_SUCCESS"}`, as NeMo Agent Toolkit's UI expects) and closes itself.
 */
export function callbackPage(success: boolean, message: string): string {
  const script = success
    ? `<script>
  if (window.opener) { window.opener.postMessage({ type: 'AUTH_SUCCESS' }, '*'); }
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
