/**
 * An optional browser notification when the workflow asks the person something while the tab is
 * hidden: chosen in Settings (the browser asks for permission then), kept in this browser.
 */
import { on } from './dom';

const KEY = 'interlude.notify';

const supported = () => 'Notification' in window;

function wanted(): boolean {
  return localStorage.getItem(KEY) === 'on' && supported() && Notification.permission === 'granted';
}

/** The Settings checkbox: asks the browser's permission when turned on. */
export function notifySetting(box: HTMLInputElement, status: HTMLElement): void {
  box.checked = wanted();
  on(box, 'change', () => {
    if (!box.checked) {
      localStorage.setItem(KEY, 'off');
      status.textContent = 'No notifications.';
      return;
    }
    if (!supported()) {
      box.checked = false;
      status.textContent = 'This browser has no notifications.';
      return;
    }
    void Notification.requestPermission().then((permission) => {
      if (permission === 'granted') {
        localStorage.setItem(KEY, 'on');
        status.textContent = 'You will be notified when this tab is hidden.';
      } else {
        box.checked = false;
        status.textContent = 'The browser refused: allow notifications for this site in its settings.';
      }
    });
  });
}

/** Tells a person in another tab or window that the workflow waits for them; a click brings the tab back. */
export function notifyWaiting(title: string, question: string, tag: string): void {
  if (!document.hidden || !wanted()) return;
  try {
    // The body is plain text to the system: nothing in the question is rendered as markup.
    const notification = new Notification(`Waiting for you · ${title}`, {
      body: question.slice(0, 200),
      tag,
    });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  } catch {
    // Some browsers only notify from a service worker: the tab's title still says it.
  }
}
