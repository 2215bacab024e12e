import { h, on } from './dom';
import type { PromptView } from './prompts';

/**
 * OAuth consent: the authorization URL opens in a popup; the callback page posts `AUTH_SUCCESS` to
 * this window and the run resumes on the server by itself.
 */
export function oauthView(authUrl: string): PromptView {
  const status = h('p', { class: 'prompt-outcome', role: 'status' });
  const button = h('button', { type: 'button', class: 'primary' }, 'Sign in');
  let safeUrl: string | null = null;
  try {
    const url = new URL(authUrl);
    if (url.protocol === 'https:' || url.protocol === 'http:') safeUrl = url.href;
  } catch {
    // Not a URL: nothing to open.
  }
  const element = h(
    'section',
    {
      class: 'prompt prompt-oauth',
      'aria-label': 'Authorization needed',
      'data-input-type': 'oauth_consent',
    },
    h('p', { class: 'prompt-text' }, 'The workflow needs your authorization to go on.'),
    h('div', { class: 'prompt-actions' }, button),
    status,
  );
  if (!safeUrl) {
    button.disabled = true;
    status.textContent = 'The authorization link is not a web address.';
  }
  let authorized = false;
  const done = () => {
    authorized = true;
    status.textContent = 'Authorized; the workflow goes on.';
    button.disabled = true;
    window.removeEventListener('message', listener);
  };
  // The callback page's message, or the run going on (whichever comes first), tells it is done.
  const listener = (event: MessageEvent) => {
    if (event.origin !== location.origin || (event.data as { type?: unknown })?.type !== 'AUTH_SUCCESS')
      return;
    done();
  };
  window.addEventListener('message', listener);
  on(button, 'click', () => {
    if (!safeUrl) return;
    const popup = window.open(safeUrl, 'interlude-oauth', 'popup,width=520,height=680');
    status.textContent = popup
      ? 'Waiting for the authorization window…'
      : 'The popup was blocked: allow popups for this page.';
  });
  return {
    element,
    focus: () => button.focus(),
    passed: () => {
      if (!authorized) done();
    },
    close: (note) => {
      button.disabled = true;
      if (!authorized) status.textContent = note;
      window.removeEventListener('message', listener);
    },
  };
}
