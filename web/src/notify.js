// Getting the person's attention while the page is in the background: a desktop
// notification for a direct message or a mention (once they allowed it, and while their
// `enable_desktop_notifications` setting is on), and the unread count in the title and
// the tab's icon.
import { dmHash, channelHash } from './narrow.js';
import { safeHtml } from './sanitize.js';
import { state, messageDmKey } from './store.js';

/** Whether a message that arrived asks for a notification. */
export function wantsNotification(message) {
  if (message.sender_id === state.me) return false;
  const flags = message.flags || [];
  if (flags.includes('read')) return false;
  if (message.type === 'private') return true;
  return flags.includes('mentioned') || flags.includes('wildcard_mentioned');
}

export function notificationsAllowed() {
  return typeof Notification !== 'undefined' && Notification.permission === 'granted';
}

export function askPermission() {
  return typeof Notification === 'undefined' ? Promise.resolve('unsupported') : Notification.requestPermission();
}

function plainText(html) {
  const doc = new DOMParser().parseFromString(safeHtml(html), 'text/html');
  return (doc.body.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** Notifies of the messages that arrived while the page was hidden. */
export function notifyArrivals(messages) {
  if (document.visibilityState === 'visible' || !notificationsAllowed()) return;
  if (state.settings.enable_desktop_notifications === false) return;
  for (const m of messages) {
    if (!wantsNotification(m)) continue;
    const where = m.type === 'private' ? 'Direct message' : `#${(state.streams.get(m.stream_id) || {}).name || m.display_recipient} › ${m.subject}`;
    const shown = new Notification(`${m.sender_full_name} (${where})`, { body: plainText(m.content), tag: `message-${m.id}` });
    shown.onclick = () => {
      window.focus();
      window.location.hash = m.type === 'private' ? dmHash(messageDmKey(m)) : channelHash(m.stream_id, m.subject);
      shown.close();
    };
  }
}

/** "(3) #general - Demo" */
export function titleText(count, view, realm) {
  const base = [view, realm].filter(Boolean).join(' - ') || 'teamchat';
  return count ? `(${count}) ${base}` : base;
}

/** The tab's icon: a speech bubble, with the count on a badge when there is one. */
export function faviconSvg(count) {
  const bubble = '<path d="M4 6a4 4 0 0 1 4-4h16a4 4 0 0 1 4 4v12a4 4 0 0 1-4 4H13l-6 6v-6H8a4 4 0 0 1-4-4z" fill="#1f5fa8"/>';
  const text = count > 99 ? '99+' : String(count);
  const badge = count ? `<circle cx="23" cy="9" r="9" fill="#c62828"/><text x="23" y="13" font-size="${text.length > 2 ? 8 : 11}" font-family="sans-serif" font-weight="bold" text-anchor="middle" fill="#fff">${text}</text>` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${bubble}${badge}</svg>`;
}

let shownCount = -1;

/** Sets the title and the icon (the icon only when the count changed). */
export function showCount(count, view, realm) {
  document.title = titleText(count, view, realm);
  if (count === shownCount) return;
  shownCount = count;
  let link = document.querySelector('link[rel="icon"]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.append(link);
  }
  link.href = `data:image/svg+xml,${encodeURIComponent(faviconSvg(count))}`;
  link.dataset.count = String(count);
}
