import { Chat } from './chat';
import { Attachments, attachmentRulesOf } from './attachments';
import { ConversationStore } from './conversations';
import { h, icon, iconButton, on } from './dom';
import { pageInfoOf } from './empty-state';
import { Inbox } from './inbox';
import { notifySetting } from './notify';
import { Settings } from './settings';
import { Sidebar } from './sidebar';

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
  const store = new ConversationStore(() => renderList());
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
    new Attachments(
      {
        form: $<HTMLFormElement>('composer'),
        input: $<HTMLTextAreaElement>('composer-input'),
        button: $<HTMLButtonElement>('attach'),
        picker: $<HTMLInputElement>('attach-input'),
        list: $('composer-attachments'),
        error: $('attach-error'),
      },
      attachmentRulesOf(body),
    ),
  );

  const sidebar = new Sidebar($('layout'), $('menu'));

  const openConversation = (id: string) => {
    const url = new URL(location.href);
    url.searchParams.set('conversation_id', id);
    history.replaceState(null, '', url);
    void chat.open(id);
    renderList();
    show('chat');
    sidebar.conversationChosen();
  };

  const search = $<HTMLInputElement>('conversation-search');
  const listStatus = $('conversations-status');
  let searching = 0;
  on(search, 'input', () => {
    window.clearTimeout(searching);
    searching = window.setTimeout(() => void reloadList(), 250);
  });

  async function reloadList(): Promise<void> {
    await store.refresh(search.value);
    renderList();
  }

  function renderList(): void {
    const current = chat.conversationId;
    const query = search.value.trim();
    const items = store.list();
    listStatus.textContent = [
      store.problem,
      store.kept ? '' : 'Kept in this tab only: the page has no identity.',
      query && items.length === 0 ? `No conversation mentions “${query}”.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    list.replaceChildren(
      ...items.map((c) => {
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
            maxlength: 120,
            'aria-label': `New name for ${c.title}`,
          });
          on(input, 'keydown', (event) => {
            if (event.key === 'Enter') {
              void store.rename(c.id, input.value).then(() => renderList());
              renderList();
            } else if (event.key === 'Escape') renderList();
          });
          on(input, 'blur', () => renderList());
          item.replaceChildren(input);
          input.focus();
          input.select();
        });
        const remove = iconButton('trash', `Delete ${c.title}`, () => {
          void store.delete(c.id);
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
    (id) => openConversation(id),
  );
  const settings = new Settings(
    $<HTMLFormElement>('identity'),
    $('schema'),
    $('identity-saved'),
    pathOrNull(body.workflowPath),
    () => void reloadList(),
  );

  notifySetting($<HTMLInputElement>('notify'), $('notify-status'));

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
  void reloadList();
  openConversation(fromUrl && /^[\w.:-]{1,128}$/.test(fromUrl) ? fromUrl : crypto.randomUUID());
}

start();
