import DOMPurify from 'dompurify';
import { marked } from 'marked';

// Links from model output open in a new tab, unable to reach back into this page.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

const SANITIZE = {
  FORBID_TAGS: [
    'style',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'iframe',
    'object',
    'embed',
    'svg',
    'math',
  ],
  FORBID_ATTR: ['style', 'id', 'name', 'srcset'],
  ALLOW_DATA_ATTR: false,
  RETURN_DOM_FRAGMENT: true as const,
};

/**
 * Model (or workflow) text rendered as Markdown into `target`. Whatever HTML the text carries goes
 * through DOMPurify: no script, no event handler attribute, no javascript: URL survives; the page's
 * CSP is the second line (no inline script, nothing loaded from another host).
 */
export function renderMarkdown(target: HTMLElement, text: string): void {
  const html = marked.parse(text, { async: false, gfm: true }) as string;
  target.replaceChildren(DOMPurify.sanitize(html, SANITIZE));
}
