import { h, on } from './dom';

/** What the server tells the page about the workflow it serves (`general.front_end.ui`). */
export interface PageInfo {
  title: string;
  description: string;
  examples: string[];
}

/** Read from the body's data attributes, which the server filled in (escaped) when it served the page. */
export function pageInfoOf(data: DOMStringMap): PageInfo {
  let examples: unknown = [];
  try {
    examples = JSON.parse(data.examples || '[]');
  } catch {
    // A page served without the server's substitution (a static copy): no examples.
  }
  return {
    title: data.title && data.title !== '%TITLE%' ? data.title : 'Interlude',
    description: data.description && data.description !== '%DESCRIPTION%' ? data.description : '',
    examples: Array.isArray(examples) ? examples.filter((e): e is string => typeof e === 'string') : [],
  };
}

/** A conversation with no message yet: the workflow's name, what it does, and questions to start with. */
export function emptyState(info: PageInfo, ask: (text: string) => void): HTMLElement {
  const examples = info.examples.map((text) => {
    const button = h('button', { type: 'button', class: 'secondary example' }, text);
    on(button, 'click', () => ask(text));
    return h('li', {}, button);
  });
  return h(
    'section',
    { class: 'empty-state', 'aria-labelledby': 'empty-title' },
    h('h2', { id: 'empty-title' }, info.title),
    info.description ? h('p', {}, info.description) : null,
    examples.length > 0
      ? h('ul', { class: 'examples', 'aria-label': 'Example questions' }, ...examples)
      : null,
  );
}
