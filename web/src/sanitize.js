// Message HTML: the server renders it safely; DOMPurify checks it again in the browser,
// so nothing the page shows can run script even if a rendering bug let something through.
import DOMPurify from 'dompurify';

const cache = new Map();
const MAX_CACHED = 5000;

const EMOJI_CLASS = /(?:^|\s)emoji-([0-9a-f]+(?:-[0-9a-f]+)*)(?:\s|$)/;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'SPAN') {
    // The server writes an emoji as its :name: inside a span that names its code points;
    // the page shows the character (the span keeps its accessible name and title).
    const code = EMOJI_CLASS.exec(node.getAttribute('class') || '');
    if (code) {
      try {
        node.textContent = String.fromCodePoint(...code[1].split('-').map((h) => parseInt(h, 16)));
      } catch { /* not a code point: the :name: text stays */ }
    }
  }
  if (node.tagName === 'IMG') {
    // An upload is read through a short-lived link (uploads.js): never its bare address,
    // which answers nobody without credentials.
    const src = node.getAttribute('src') || '';
    if (/^\/user_uploads\//.test(src)) {
      node.setAttribute('data-upload-src', src);
      node.removeAttribute('src');
    }
  }
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') || '';
    // Only web and mail links stay live; anything else (javascript:, data:) is dead text.
    if (href && !/^(https?:|mailto:|\/|#)/i.test(href)) node.removeAttribute('href');
    // A link into the app (a channel or topic link: "/#narrow/…") opens here.
    if (/^\/#narrow\//.test(href)) node.setAttribute('href', href.slice(1));
    else if (node.hasAttribute('href') && !href.startsWith('#')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  }
});

export function safeHtml(html) {
  let clean = cache.get(html);
  if (clean === undefined) {
    clean = DOMPurify.sanitize(html, {
      FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
      FORBID_ATTR: ['style'],
      ALLOW_DATA_ATTR: true,
      ADD_ATTR: ['target'],
    });
    if (cache.size > MAX_CACHED) cache.clear();
    cache.set(html, clean);
  }
  return clean;
}

// Messages fetched in pages are sanitized ahead, in idle time, so scrolling to them only
// inserts HTML already checked (sanitizing is most of the cost of showing a message).
const ahead = [];
let scheduled = false;
const idle = window.requestIdleCallback || ((run) => setTimeout(() => run({ timeRemaining: () => 8 }), 1));

export function sanitizeAhead(htmls) {
  ahead.push(...htmls);
  if (scheduled) return;
  scheduled = true;
  idle(function work(deadline) {
    while (ahead.length && deadline.timeRemaining() > 2) safeHtml(ahead.pop());
    if (ahead.length) idle(work); else scheduled = false;
  });
}
