import { on } from './dom';

const SIDEBAR_KEY = 'interlude.sidebar';
/** The width below which the page is laid out for a phone (app.css's media query). */
const PHONE = '(max-width: 720px)';

/**
 * The conversations sidebar and the "Conversations" button that shows or hides it. On a desktop it is
 * open unless the person collapsed it, and stays as they left it across reloads (localStorage); on a
 * phone it is a menu, closed until the button opens it and closed again once a conversation is chosen.
 */
export class Sidebar {
  private readonly phone = matchMedia(PHONE);
  private desktopOpen = localStorage.getItem(SIDEBAR_KEY) !== 'collapsed';
  private phoneOpen = false;

  constructor(
    private readonly layout: HTMLElement,
    private readonly button: HTMLElement,
  ) {
    on(button, 'click', () => this.toggle());
    this.phone.addEventListener('change', () => {
      this.phoneOpen = false;
      this.render();
    });
    this.render();
  }

  /** A conversation was chosen: the phone's menu closes; a desktop keeps the sidebar as it was. */
  conversationChosen(): void {
    this.phoneOpen = false;
    this.render();
  }

  private toggle(): void {
    if (this.phone.matches) {
      this.phoneOpen = !this.phoneOpen;
    } else {
      this.desktopOpen = !this.desktopOpen;
      if (this.desktopOpen) localStorage.removeItem(SIDEBAR_KEY);
      else localStorage.setItem(SIDEBAR_KEY, 'collapsed');
    }
    this.render();
  }

  private render(): void {
    this.layout.classList.toggle('menu-open', this.phoneOpen);
    this.layout.classList.toggle('sidebar-collapsed', !this.desktopOpen);
    const open = this.phone.matches ? this.phoneOpen : this.desktopOpen;
    this.button.setAttribute('aria-expanded', String(open));
    this.button.title = open ? 'Hide the conversations' : 'Show the conversations';
  }
}
