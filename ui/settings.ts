import { api, loadCredentials, saveCredentials, serverPath, type Credentials } from './api';
import { h, on } from './dom';

interface OpenApi {
  paths?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: Schema }> } } }>;
  components?: { schemas?: Record<string, Schema> };
}
interface Schema {
  $ref?: string;
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
}

/** Settings: the identity this tab sends (session storage) and the workflow's input schema. */
export class Settings {
  constructor(
    private readonly form: HTMLFormElement,
    private readonly schemaBox: HTMLElement,
    private readonly saved: HTMLElement,
    private readonly workflowPath: string | null,
    /** The identity the page sends changed: what the server keeps for it is another person's. */
    private readonly identityChanged: () => void = () => undefined,
  ) {
    const { kind, token } = loadCredentials();
    (form.elements.namedItem('kind') as RadioNodeList).value = kind;
    (form.elements.namedItem('token') as HTMLInputElement).value = token;
    on(form, 'submit', (event) => {
      event.preventDefault();
      const credentials: Credentials = {
        kind: (form.elements.namedItem('kind') as RadioNodeList).value as Credentials['kind'],
        token: (form.elements.namedItem('token') as HTMLInputElement).value.trim(),
      };
      saveCredentials(credentials);
      saved.textContent =
        credentials.kind === 'none' || !credentials.token
          ? 'Using the browser session.'
          : 'Saved for this tab.';
      this.identityChanged();
    });
  }

  /** Shows the input schema of the generate-style workflow route from /openapi.json. */
  async loadSchema(): Promise<void> {
    if (this.workflowPath === null) {
      this.schemaBox.replaceChildren(h('p', {}, 'This server has no workflow route.'));
      return;
    }
    try {
      const res = await api(serverPath('/openapi.json'));
      if (!res.ok) throw new Error(String(res.status));
      const doc = (await res.json()) as OpenApi;
      const body = doc.paths?.[this.workflowPath]?.post?.requestBody?.content?.['application/json']?.schema;
      const schema = resolve(doc, body);
      if (!schema) throw new Error('no schema');
      this.schemaBox.replaceChildren(h('p', {}, `POST ${this.workflowPath} takes:`), describe(doc, schema));
    } catch {
      this.schemaBox.replaceChildren(h('p', {}, 'The input schema could not be read from /openapi.json.'));
    }
  }
}

function resolve(doc: OpenApi, schema: Schema | undefined): Schema | undefined {
  const ref = schema?.$ref;
  if (!ref) return schema;
  return doc.components?.schemas?.[ref.split('/').pop() ?? ''];
}

function describe(doc: OpenApi, schema: Schema): HTMLElement {
  const rows = Object.entries(schema.properties ?? {}).map(([name, raw]) => {
    const prop = resolve(doc, raw) ?? raw;
    const required = schema.required?.includes(name);
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, h('code', {}, name)),
      h('td', {}, prop.type ?? 'object'),
      h('td', {}, required ? 'required' : 'optional'),
      h('td', {}, prop.description ?? raw.description ?? ''),
    );
  });
  return h(
    'table',
    { class: 'schema' },
    h('caption', { class: 'visually-hidden' }, 'Workflow input fields'),
    h(
      'thead',
      {},
      h('tr', {}, ...['Field', 'Type', 'Required', 'Description'].map((c) => h('th', { scope: 'col' }, c))),
    ),
    h('tbody', {}, ...rows),
  );
}
