import { callbackPage, openerOrigins } from './callback-page';

describe('openerOrigins', () => {
  it('keeps the origins of the configured CORS origins and public base URL, never * or null', () => {
    expect(
      openerOrigins(
        ['https://ui.example.com', '*', 'null', 'http://localhost:3000/'],
        'https://agents.example.com',
      ),
    ).toEqual(['https://ui.example.com', 'http://localhost:3000', 'https://agents.example.com']);
    expect(openerOrigins(['*'], undefined)).toEqual([]);
  });
});

describe('callbackPage', () => {
  it("posts AUTH_SUCCESS to the given origins and its own, never to '*'", () => {
    const html = callbackPage(true, 'ok', ['https://ui.example.com']);
    expect(html).toContain('["https://ui.example.com"]');
    expect(html).toContain('window.location.origin');
    expect(html).not.toMatch(/postMessage\([^)]*'\*'/);
  });

  it('a failure page has no script and escapes its message', () => {
    const html = callbackPage(false, '<img src=x onerror=alert(1)>', ['https://ui.example.com']);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;img');
  });
});
