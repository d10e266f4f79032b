// The message list: a window of at most WINDOW messages of the narrow in the page at a
// time, moved as the person scrolls (older pages fetched at the top), so a narrow of
// 10,000 messages scrolls as smoothly as one of 100. Messages seen are marked read.
import { html } from 'htm/preact';
import { memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Avatar } from './avatar.js';
import { EmojiPicker, emojiChar } from './emoji.js';
import {
  narrowState, loadNarrow, loadOlder, markSeen, toggleReaction, rawContent, editMessage,
  deleteMessage,
} from './messages.js';
import { channelHash, dmHash } from './narrow.js';
import { notice } from './notices.js';
import { safeHtml } from './sanitize.js';
import { state, userName, messageDmKey } from './store.js';

const WINDOW = 150;
const STEP = 30;
const EDGE_PX = 900;

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function lowerBound(ids, id) {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (ids[mid] < id) lo = mid + 1; else hi = mid; }
  return lo;
}

function conversation(m) {
  return m.type === 'stream' ? `s:${m.stream_id}:${m.subject.toLowerCase()}` : `d:${messageDmKey(m)}`;
}

export function MessageList({ narrow, selected, setSelected, actions }) {
  const box = useRef(null);
  const win = useRef(null);
  const anchor = useRef(null);
  const [, rerender] = useState(0);
  const view = narrowState(narrow.key);
  const ids = view.ids;

  useEffect(() => { win.current = null; loadNarrow(narrow.key, narrow.ops); }, [narrow.key]);

  let w = win.current;
  if (!w && ids.length) w = win.current = { from: ids[Math.max(0, ids.length - WINDOW)], to: ids[ids.length - 1], pinned: true };
  let start = 0;
  let end = -1;
  if (w && ids.length) {
    if (w.pinned) {
      w.to = ids[ids.length - 1];
      w.from = ids[Math.max(lowerBound(ids, w.from), ids.length - WINDOW, 0)];
    }
    start = Math.min(lowerBound(ids, w.from), ids.length - 1);
    end = Math.max(Math.min(lowerBound(ids, w.to + 1) - 1, ids.length - 1), start);
  }

  const captureAnchor = () => {
    const el = box.current;
    for (const child of el.querySelectorAll('.message')) {
      if (child.offsetTop + child.offsetHeight > el.scrollTop) {
        anchor.current = { id: child.dataset.id, delta: child.offsetTop - el.scrollTop };
        return;
      }
    }
  };

  const shift = (newStart, newEnd) => {
    captureAnchor();
    win.current = { from: ids[newStart], to: ids[newEnd], pinned: false };
    rerender((n) => n + 1);
  };

  const check = () => {
    const el = box.current;
    if (!el || !ids.length || !win.current) return;
    const fromBottom = el.scrollHeight - el.scrollTop - el.clientHeight;
    if (el.scrollTop < EDGE_PX) {
      if (start > 0) {
        const s = Math.max(0, start - STEP);
        shift(s, Math.min(end, s + WINDOW - 1));
      } else if (!view.foundOldest && !view.loading) {
        loadOlder(narrow.key, narrow.ops);
      }
    } else if (fromBottom < EDGE_PX && end < ids.length - 1) {
      const e = Math.min(ids.length - 1, end + STEP);
      shift(Math.max(start, e - WINDOW + 1), e);
    } else {
      win.current.pinned = fromBottom < 40 && end === ids.length - 1;
    }
  };

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    if (anchor.current) {
      const target = el.querySelector(`.message[data-id="${anchor.current.id}"]`);
      if (target) el.scrollTop = target.offsetTop - anchor.current.delta;
      anchor.current = null;
    } else if (win.current && win.current.pinned) {
      el.scrollTop = el.scrollHeight;
    }
  });

  // After each render: a window at an edge may need the next step (no scroll event comes
  // when the person stays still at the top while an older page arrives).
  useEffect(() => { const t = setTimeout(check, 50); return () => clearTimeout(t); });

  // Read on sight: an unread message at least half in view, while the page is visible.
  // One observer for the list's life; each unread element is observed once.
  const observer = useRef(null);
  const observed = useRef({ count: 0, round: 1 });
  useEffect(() => {
    observer.current = new IntersectionObserver((entries) => {
      if (document.visibilityState !== 'visible') return;
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        markSeen(Number(entry.target.dataset.id));
        observer.current.unobserve(entry.target);
      }
    }, { root: box.current, threshold: 0.5 });
    return () => observer.current.disconnect();
  }, []);
  useEffect(() => {
    const io = observer.current;
    if (!io || !box.current) return;
    const seen = observed.current;
    if (seen.count > 1000) { io.disconnect(); seen.count = 0; seen.round += 1; }   // forget gone elements
    const round = String(seen.round);
    for (const child of box.current.querySelectorAll('.message.unread')) {
      if (child.dataset.observed === round) continue;
      child.dataset.observed = round;
      seen.count += 1;
      io.observe(child);
    }
  });

  let ticking = false;
  const onScroll = () => {
    if (ticking) return;
    ticking = true;
    requestAnimationFrame(() => { ticking = false; check(); });
  };

  const rows = [];
  let previous = null;
  let previousSender = null;
  for (let i = start; i <= end && ids.length; i += 1) {
    const m = state.messages.get(ids[i]);
    if (!m) continue;
    const conv = conversation(m);
    if (conv !== previous) rows.push(html`<${RecipientBar} key=${'h' + m.id} message=${m} />`);
    const match = view.matches.get(m.id);
    rows.push(html`<${Message} key=${m.id} message=${m} match=${match} unread=${state.unread.has(m.id)}
      selected=${selected === m.id} continued=${conv === previous && previousSender === m.sender_id}
      onSelect=${setSelected} actions=${actions} />`);
    previous = conv;
    previousSender = m.sender_id;
  }

  const status = view.error
    ? html`<p class="list-status" role="alert">Could not load messages: ${view.error}</p>`
    : (view.loading && !view.loaded ? html`<p class="list-status">Loading…</p>` : null);
  return html`<section class="messages" ref=${box} onScroll=${onScroll} aria-label="Messages" aria-busy=${!!view.loading}>
    ${start === 0 && view.foundOldest && view.loaded ? html`<p class="list-edge">${!ids.length ? 'No messages here yet.' : narrow.query !== undefined ? 'Every match is shown.' : 'The beginning of this conversation'}</p>` : null}
    ${start > 0 || (!view.foundOldest && view.loaded) ? html`<p class="list-edge">Loading older messages…</p>` : null}
    ${status}
    ${rows}
  </section>`;
}

function RecipientBar({ message }) {
  if (message.type === 'stream') {
    const stream = state.streams.get(message.stream_id);
    return html`<h2 class="recipient-bar">
      <a href=${channelHash(message.stream_id)}>#${stream ? stream.name : message.display_recipient}</a>
      <span aria-hidden="true"> › </span>
      <a href=${channelHash(message.stream_id, message.subject)}>${message.subject || '(no topic)'}</a>
    </h2>`;
  }
  const others = message.display_recipient.filter((r) => r.id !== state.me).map((r) => r.full_name);
  return html`<h2 class="recipient-bar"><a href=${dmHash(messageDmKey(message))}>
    ${others.length ? `You and ${others.join(', ')}` : 'You (notes to self)'}</a></h2>`;
}

function groupReactions(reactions) {
  const groups = new Map();
  for (const r of reactions || []) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const group = groups.get(key) || { ...r, users: [] };
    group.users.push(r.user_id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

const Message = memo(({ message, match, unread, selected, continued, onSelect, actions }) => {
  const mine = message.sender_id === state.me;
  const editing = actions.editing === message.id;
  const content = match ? match.content : message.content;
  return html`<article class=${`message${unread ? ' unread' : ''}${selected ? ' selected' : ''}${continued ? ' continued' : ''}`}
      data-id=${message.id} id=${`message-${message.id}`} tabindex=${selected ? 0 : -1}
      aria-label=${`${message.sender_full_name}, ${dateFormat.format(new Date(message.timestamp * 1000))}${unread ? ', unread' : ''}`}
      onFocus=${() => onSelect(message.id)} onClick=${() => onSelect(message.id)}>
    <div class="gutter">${continued ? null : html`<${Avatar} userId=${message.sender_id} name=${message.sender_full_name} url=${message.avatar_url} />`}</div>
    <div class="body">
      ${continued ? null : html`<div class="meta">
        <span class="sender">${message.sender_full_name}</span>
        <time datetime=${new Date(message.timestamp * 1000).toISOString()}>${timeFormat.format(new Date(message.timestamp * 1000))}</time>
        ${message.last_edit_timestamp ? html`<span class="edited" title=${`Edited ${dateFormat.format(new Date(message.last_edit_timestamp * 1000))}`}>(edited)</span>` : null}
      </div>`}
      ${continued && message.last_edit_timestamp ? html`<span class="edited">(edited)</span>` : null}
      ${editing ? html`<${Editor} message=${message} actions=${actions} />`
        : html`<div class="content" dangerouslySetInnerHTML=${{ __html: safeHtml(content) }} />`}
      ${message.reactions && message.reactions.length ? html`<div class="reactions" role="group" aria-label="Reactions">
        ${groupReactions(message.reactions).map((r) => html`<button type="button" class="reaction"
          aria-pressed=${r.users.includes(state.me)} title=${r.users.map(userName).join(', ')}
          aria-label=${`${r.emoji_name.replace(/_/g, ' ')}: ${r.users.length}`}
          onClick=${() => toggleReaction(message, { name: r.emoji_name, code: r.emoji_code }).catch((e) => notice('reaction', e.message, 'error', 6000))}>
          <span aria-hidden="true">${r.reaction_type === 'unicode_emoji' ? emojiChar(r.emoji_code) : `:${r.emoji_name}:`}</span> ${r.users.length}</button>`)}
      </div>` : null}
      <div class="actions">
        <button type="button" class="icon" aria-label="React to this message" title="React (:)" onClick=${() => actions.pick(message.id)}>☺︎</button>
        ${mine ? html`<button type="button" class="icon" aria-label="Edit this message" title="Edit (e)" onClick=${() => actions.edit(message.id)}>✎</button>
        <button type="button" class="icon" aria-label="Delete this message" title="Delete (Delete)" onClick=${() => actions.confirmDelete(message.id)}>🗑︎</button>` : null}
      </div>
      ${actions.picking === message.id ? html`<${EmojiPicker} onClose=${() => actions.pick(null)}
        onPick=${(emoji) => { actions.pick(null); toggleReaction(message, emoji).catch((e) => notice('reaction', e.message, 'error', 6000)); }} />` : null}
      ${actions.deleting === message.id ? html`<${ConfirmDelete} message=${message} actions=${actions} />` : null}
    </div>
  </article>`;
});

function Editor({ message, actions }) {
  const [text, setText] = useState(null);
  const [error, setError] = useState('');
  const area = useRef(null);
  useEffect(() => {
    rawContent(message.id).then((raw) => setText(raw)).catch((e) => setError(e.message));
  }, [message.id]);
  useEffect(() => { if (text !== null && area.current && document.activeElement !== area.current) area.current.focus(); }, [text === null]);
  const save = async () => {
    try {
      await editMessage(message.id, text);
      actions.edit(null);
    } catch (e) {
      setError(e.message);   // the edited text stays in the box
    }
  };
  const onKey = (event) => {
    if (event.key === 'Enter' && !event.shiftKey) { event.preventDefault(); save(); }
    if (event.key === 'Escape') { event.preventDefault(); event.stopPropagation(); actions.edit(null); }
  };
  return html`<div class="editor">
    <textarea ref=${area} aria-label="Edit message" value=${text ?? ''} disabled=${text === null}
      onInput=${(e) => setText(e.currentTarget.value)} onKeyDown=${onKey} />
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <button type="button" onClick=${save}>Save</button>
    <button type="button" class="link" onClick=${() => actions.edit(null)}>Cancel</button>
  </div>`;
}

function ConfirmDelete({ message, actions }) {
  const button = useRef(null);
  useEffect(() => button.current && button.current.focus(), []);
  const remove = () => {
    actions.confirmDelete(null);
    deleteMessage(message.id).catch((e) => notice('delete', `Could not delete: ${e.message}`, 'error', 8000));
  };
  return html`<div class="confirm" role="group" aria-label="Delete this message?"
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); actions.confirmDelete(null); } }}>
    Delete this message?
    <button type="button" ref=${button} class="danger" onClick=${remove}>Delete</button>
    <button type="button" class="link" onClick=${() => actions.confirmDelete(null)}>Cancel</button>
  </div>`;
}
