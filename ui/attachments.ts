import { h, iconButton, on } from './dom';

/** What the server accepts (the body's data-attachments), or null when the workflow reads no images. */
export interface AttachmentRules {
  types: string[];
  maxBytes: number;
}

/** An image chosen for the next message: its name (shown as text only) and its bytes as a data: URL. */
export interface Attachment {
  name: string;
  type: string;
  url: string;
}

export function attachmentRulesOf(data: DOMStringMap): AttachmentRules | null {
  try {
    const rules = JSON.parse(data.attachments || 'null') as Partial<AttachmentRules> | null;
    if (!rules || !Array.isArray(rules.types) || typeof rules.maxBytes !== 'number') return null;
    return { types: rules.types.filter((t) => typeof t === 'string'), maxBytes: rules.maxBytes };
  } catch {
    return null;
  }
}

const MAX_PER_MESSAGE = 4;
const kib = (n: number) => `${Math.round(n / 1024).toLocaleString('en-US')} KiB`;
const short = (type: string) => type.replace(/^image\//, '');

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });
}

export interface AttachmentElements {
  form: HTMLFormElement;
  input: HTMLTextAreaElement;
  button: HTMLButtonElement;
  picker: HTMLInputElement;
  list: HTMLElement;
  error: HTMLElement;
}

/**
 * The composer's images: an attach button (shown only when the server takes images), paste and drop;
 * each file's type and size checked here as the server checks them again; the chosen ones listed with a
 * thumbnail and their name, until the message is sent.
 */
export class Attachments {
  private chosen: Attachment[] = [];

  constructor(
    private readonly ui: AttachmentElements,
    private readonly rules: AttachmentRules | null,
  ) {
    if (!rules) return;
    ui.button.hidden = false;
    ui.picker.accept = rules.types.join(',');
    on(ui.button, 'click', () => ui.picker.click());
    on(ui.picker, 'change', () => {
      void this.add([...(ui.picker.files ?? [])]);
      ui.picker.value = '';
    });
    on(ui.input, 'paste', (event) => {
      const files = [...(event.clipboardData?.files ?? [])];
      if (files.length === 0) return;
      event.preventDefault();
      void this.add(files);
    });
    on(ui.form, 'dragover', (event) => event.preventDefault());
    on(ui.form, 'drop', (event) => {
      event.preventDefault();
      void this.add([...(event.dataTransfer?.files ?? [])]);
    });
  }

  get count(): number {
    return this.chosen.length;
  }

  /** The images for the message being sent; the composer is emptied of them. */
  take(): Attachment[] {
    const taken = this.chosen;
    this.chosen = [];
    this.render();
    return taken;
  }

  private async add(files: File[]): Promise<void> {
    const rules = this.rules!;
    const problems: string[] = [];
    for (const file of files) {
      if (this.chosen.length >= MAX_PER_MESSAGE) {
        problems.push(`${file.name}: at most ${MAX_PER_MESSAGE} images per message`);
      } else if (!rules.types.includes(file.type)) {
        problems.push(`${file.name}: not an accepted image type (${rules.types.map(short).join(', ')})`);
      } else if (file.size > rules.maxBytes) {
        problems.push(`${file.name}: ${kib(file.size)}, over the limit of ${kib(rules.maxBytes)}`);
      } else {
        try {
          this.chosen.push({ name: file.name, type: file.type, url: await readAsDataUrl(file) });
        } catch {
          problems.push(`${file.name}: could not be read`);
        }
      }
    }
    this.ui.error.textContent = problems.join('; ');
    this.render();
  }

  private render(): void {
    this.ui.list.replaceChildren(
      ...this.chosen.map((a, i) =>
        h(
          'li',
          { class: 'attachment' },
          h('img', { src: a.url, alt: '', class: 'thumb' }),
          h('span', { class: 'attachment-name' }, a.name),
          iconButton('close', `Remove ${a.name}`, () => {
            this.chosen.splice(i, 1);
            this.render();
          }),
        ),
      ),
    );
  }
}

/** The chosen images of a sent message, as its question shows them: a thumbnail (this session) and the name. */
export function attachmentList(attachments: { name: string; url?: string }[]): HTMLElement {
  return h(
    'ul',
    { class: 'attachments', 'aria-label': 'Attached images' },
    ...attachments.map((a) =>
      h(
        'li',
        { class: 'attachment' },
        a.url?.startsWith('data:image/') ? h('img', { src: a.url, alt: '', class: 'thumb' }) : null,
        h('span', { class: 'attachment-name' }, a.name),
      ),
    ),
  );
}

/** The thumbnails of a turn's images, for this session only (the stored conversation keeps their names). */
export const thumbnails = new WeakMap<object, string[]>();

/** A user message's content in NeMo Agent Toolkit's shape: the text, with its images as image_url parts. */
export function userContent(text: string, images: Attachment[]): string | Record<string, unknown>[] {
  if (images.length === 0) return text;
  return [
    ...(text ? [{ type: 'text', text }] : []),
    ...images.map((i) => ({ type: 'image_url', image_url: { url: i.url } })),
  ];
}
