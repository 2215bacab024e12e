/** The identity the page sends, kept for this tab only (sessionStorage); the session cookie otherwise. */
export interface Credentials {
  kind: 'none' | 'api_key' | 'bearer';
  token: string;
}

const KEY = 'interlude.credentials';

export function loadCredentials(): Credentials {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Credentials | null;
    if (saved && (saved.kind === 'api_key' || saved.kind === 'bearer') && typeof saved.token === 'string') {
      return saved;
    }
  } catch {
    // A damaged entry means no credentials.
  }
  return { kind: 'none', token: '' };
}

export function saveCredentials(credentials: Credentials): void {
  if (credentials.kind === 'none' || credentials.token === '') sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, JSON.stringify(credentials));
}

function authHeaders(): Record<string, string> {
  const { kind, token } = loadCredentials();
  if (kind === 'api_key') return { 'X-API-Key': token };
  if (kind === 'bearer') return { Authorization: `Bearer ${token}` };
  return {};
}

/** Where the server mounted its routes (`general.front_end.root_path`), from the page's markup. */
export function serverPath(path: string): string {
  return `${document.body.dataset.rootPath ?? ''}${path}`;
}

/** A same-origin call with the page's identity; JSON in, the Response out. */
export function api(
  path: string,
  init: { method?: string; body?: unknown; keepalive?: boolean } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders() };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(path, {
    method: init.method ?? 'GET',
    headers,
    credentials: 'same-origin',
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    keepalive: init.keepalive,
  });
}

/** The `detail` (or message) of an error answer, for showing in place. */
export async function problemOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: unknown; message?: unknown };
    const detail = body.detail ?? body.message;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return detail.map((d) => (d as { msg?: string }).msg ?? '').join('; ');
  } catch {
    // Not JSON.
  }
  return `${res.status} ${res.statusText}`;
}
