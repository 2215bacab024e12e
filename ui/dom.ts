/** Small DOM helpers: elements are built with properties and text, never from HTML strings. */

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children)
    if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

export function on<K extends keyof HTMLElementEventMap>(
  el: EventTarget,
  type: K,
  listener: (event: HTMLElementEventMap[K]) => void,
): void {
  el.addEventListener(type, listener as EventListener);
}

let counter = 0;
/** A document-unique id for label/aria wiring. */
export const uid = (prefix: string) => `${prefix}-${++counter}`;

const SVG = 'http://www.w3.org/2000/svg';
const ICONS: Record<string, string> = {
  send: 'M3 20l18-8L3 4v6l12 2-12 2z',
  stop: 'M6 6h12v12H6z',
  copy: 'M8 8h11v13H8zM5 3h11v3H7v11H5z',
  retry: 'M12 5V2L7 6l5 4V7a5 5 0 1 1-5 5H5a7 7 0 1 0 7-7z',
  up: 'M2 21h4V9H2zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6V3a1.5 1.5 0 0 0-.4-1L13 1 6.6 7.4A2 2 0 0 0 6 8.8V19a2 2 0 0 0 2 2h9a2 2 0 0 0 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7z',
  down: 'M22 3h-4v12h4zM2 14a2 2 0 0 0 2 2h6.3l-1 4.6v.4a1.5 1.5 0 0 0 .4 1l1.3 1 6.4-6.4A2 2 0 0 0 18 15.2V5a2 2 0 0 0-2-2H7a2 2 0 0 0-1.8 1.2l-3 7.1c-.1.2-.2.5-.2.7z',
  edit: 'M3 17.3V21h3.8l11-11-3.8-3.8zM20.7 7a1 1 0 0 0 0-1.4l-2.3-2.3a1 1 0 0 0-1.4 0l-1.8 1.8 3.7 3.7z',
  trash: 'M6 19a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2V7H6zM19 4h-3.5l-1-1h-5l-1 1H5v2h14z',
  plus: 'M19 13h-6v6h-2v-6H5v-2h6V5h2v6h6z',
  theme: 'M12 3a9 9 0 1 0 9 9 7 7 0 0 1-9-9z',
  close: 'M19 6.4 17.6 5 12 10.6 6.4 5 5 6.4 10.6 12 5 17.6 6.4 19 12 13.4 17.6 19 19 17.6 13.4 12z',
  attach:
    'M16.5 6v11.5a4 4 0 0 1-8 0V5a2.5 2.5 0 0 1 5 0v10.5a1 1 0 0 1-2 0V6H10v9.5a2.5 2.5 0 0 0 5 0V5a4 4 0 0 0-8 0v12.5a5.5 5.5 0 0 0 11 0V6z',
};

/** An inline SVG icon, hidden from screen readers (the button carries the label). */
export function icon(name: keyof typeof ICONS | string): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', 'icon');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[name] ?? '');
  svg.append(path);
  return svg;
}

/** A button showing an icon, named for screen readers by `label`. */
export function iconButton(
  name: string,
  label: string,
  onClick: () => void,
  attrs: Attrs = {},
): HTMLButtonElement {
  const button = h(
    'button',
    { type: 'button', class: 'icon-button', 'aria-label': label, title: label, ...attrs },
    icon(name),
  );
  on(button, 'click', onClick);
  return button;
}

/** Whole seconds left as m:ss, or h:mm:ss from an hour. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const two = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}:${two(s % 60)}`;
  return `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}
