import { Chat } from './chat';
import { ConversationStore } from './conversations';
import { h, icon, iconButton, on } from './dom';
import { pageInfoOf } from './empty-state';
import { Inbox } from './inbox';
import { Settings } from './settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const pathOrNull = (value: string | undefined) => (value ? value : null);

const THEME_KEY = 'interlude.theme';
type Theme = 'light' | 'dark';

function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  const button = $('theme');
  const other = theme === 'dark' ? 'light' : 'dark';
  button.setAttribute('aria-label', `Switch to ${other} theme`);
  button.replaceChildren(icon('theme'));
}

function start(): void {
  const body = document.body.dataset;
  const store = new ConversationStore();
  const announcer = $('announcer');
  const announce = (text: string) => {
    announcer.textContent = '';
    window.setTimeout(() => (announcer.textContent = text), 50);
  };

  const saved = localStorage.getItem(THEME_KEY);
  applyTheme(
    saved === 'dark' || saved === 'light'
      ? saved
      : matchMedia('(prefers-color-scheme: dark)').matches
        ? 'dark'
        : 'light',
  );
  on($('theme'), 'click', () => {
    const next: Theme = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem(THEME_KEY, next);
    applyTheme(next);
  });

  const list = $('conversations');
  const chat = new Chat(
    store,
    {
      log: $('log'),
      form: $<HTMLFormElement>('composer'),
      input: $<HTMLTextAreaElement>('composer-input'),
      stop: $<HTMLButtonElement>('stop'),
      connection: $('connection'),
      announce,
      listChanged: () => renderList(),
    },
    body.websocketPath ? `${body.rootPath ?? ''}${body.websocketPath}` : null,
    pageInfoOf(body),
  );

  // On a phone the sidebar is a menu: the button opens it, choosing a conversation closes it.
  const menu = $('menu');
  const showMenu = (open: boolean) => {
    document.querySelector('.layout')?.classList.toggle('menu-open', open);
    menu.setAttribute('aria-expanded', String(open));
  };
  on(menu, 'click', () => showMenu(menu.getAttribute('aria-expanded') !== 'true'));

  const openConversation = (id: string) => {
    const url = new URL(location.href);
    url.searchParams.set('conversation_id', id);
    history.replaceState(null, '', url);
    chat.open(id);
    renderList();
    show('chat');
    showMenu(false);
  };

  function renderList(): void {
    const current = chat.conversationId;
    list.replaceChildren(
      ...store
        .list()
        .filter((c) => c.turns.length > 0)
        .map((c) => {
          const select = h(
            'button',
            { type: 'button', class: 'conversation-title', 'aria-current': c.id === current ? 'true' : null },
            c.title,
          );
          on(select, 'click', () => openConversation(c.id));
          const rename = iconButton('edit', `Rename ${c.title}`, () => {
            const input = h('input', {
              type: 'text',
              value: c.title,
              'aria-label': `New name for ${c.title}`,
            });
            on(input, 'keydown', (event) => {
              if (event.key === 'Enter') {
                store.rename(c.id, input.value);
                renderList();
              } else if (event.key === 'Escape') renderList();
            });
            on(input, 'blur', () => renderList());
            item.replaceChildren(input);
            input.focus();
            input.select();
          });
          const remove = iconButton('trash', `Delete ${c.title}`, () => {
            store.delete(c.id);
            if (c.id === current) openConversation(crypto.randomUUID());
            else renderList();
            announce(`Deleted ${c.title}`);
          });
          const item = h('li', { class: 'conversation' }, select, rename, remove);
          return item;
        }),
    );
  }

  const inbox = new Inbox(
    $('inbox'),
    $('inbox-status'),
    $<HTMLButtonElement>('inbox-more'),
    $<HTMLButtonElement>('inbox-refresh'),
  );
  const settings = new Settings(
    $<HTMLFormElement>('identity'),
    $('schema'),
    $('identity-saved'),
    pathOrNull(body.workflowPath),
  );

  const views = ['chat', 'inbox', 'settings'];
  function show(view: string): void {
    for (const name of views) $(`view-${name}`).hidden = name !== view;
    for (const button of document.querySelectorAll<HTMLButtonElement>('nav.views button')) {
      if (button.dataset.view === view) button.setAttribute('aria-current', 'page');
      else button.removeAttribute('aria-current');
    }
    if (view === 'inbox') void inbox.load();
    if (view === 'settings') void settings.loadSchema();
  }
  for (const button of document.querySelectorAll<HTMLButtonElement>('nav.views button')) {
    on(button, 'click', () => show(button.dataset.view ?? 'chat'));
  }
  on($('new-conversation'), 'click', () => {
    openConversation(crypto.randomUUID());
    $('composer-input').focus();
  });

  const fromUrl = new URL(location.href).searchParams.get('conversation_id');
  openConversation(fromUrl && fromUrl.length <= 128 ? fromUrl : crypto.randomUUID());
}

start();
