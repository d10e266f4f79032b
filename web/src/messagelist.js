// The message list: a window of at most WINDOW messages of the narrow in the page at a
// time, moved as the person scrolls (older and newer pages fetched at the edges), so a
// narrow of 10,000 messages scrolls as smoothly as one of 100.
//
// Reading position: a narrow opens at its first unread message (the bottom when nothing
// is unread); at the bottom the view follows what arrives (one's own messages too);
// elsewhere the message at the top of the view stays where it is whatever changes
// around it (older pages, images, edits), and a control says when there is more below.
// Read state follows what was seen (reading.js decides from the geometry measured here).
import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Message, RecipientBar } from './message.js';
import { narrowState, loadNarrow, loadOlder, loadNewer, loadNewest, markSeen } from './messages.js';
import { atBottom, landing, scrollFor, seenRows } from './reading.js';
import { conversationOf } from './reducer.js';
import { signal, useSignal } from './signal.js';
import { state } from './store.js';
import { firstUnread, unreadAfter } from './unread.js';

const WINDOW = 150;
const STEP = 30;
const EDGE_PX = 900;

/** Set (to anything new) to bring the open list to its newest message: after a send. */
export const jumpToNewest = signal(0);

function lowerBound(ids, id) {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (ids[mid] < id) lo = mid + 1; else hi = mid; }
  return lo;
}

export function MessageList({ narrow, selected, setSelected, actions }) {
  const box = useRef(null);
  const inner = useRef(null);
  const pos = useRef({ from: null, to: null, stick: false, landed: false, anchor: null, looked: new Map(), arrivedBelow: false, lastVisible: 0, count: 0 });
  const [, rerender] = useState(0);
  const jump = useSignal(jumpToNewest);
  const view = narrowState(narrow.key);
  const ids = view.ids;
  const p = pos.current;

  useEffect(() => { loadNarrow(narrow.key, narrow.ops); }, [narrow.key]);

  // The window [start, end] of ids in the page.
  if (view.loaded && ids.length && p.from === null) {
    const target = p.stick ? null : firstUnread(ids);
    const at = target === null ? ids.length - 1 : lowerBound(ids, target);
    const first = Math.max(0, Math.min(at - 40, ids.length - WINDOW));
    p.from = ids[first];
    p.to = ids[Math.min(ids.length - 1, first + WINDOW - 1)];
  }
  if (p.stick && view.foundNewest && ids.length) {
    p.to = ids[ids.length - 1];
    p.from = ids[Math.max(lowerBound(ids, p.from ?? 0), ids.length - WINDOW, 0)];
  }
  let start = 0;
  let end = -1;
  if (p.from !== null && ids.length) {
    start = Math.min(lowerBound(ids, p.from), ids.length - 1);
    end = Math.max(Math.min(lowerBound(ids, p.to + 1) - 1, ids.length - 1), start);
  }
  const atEnd = end === ids.length - 1 && view.foundNewest;
  if (ids.length > p.count && p.landed && !p.stick && ids[ids.length - 1] > (p.lastId || 0)) p.arrivedBelow = true;
  p.count = ids.length;
  p.lastId = ids[ids.length - 1];

  /** The message at the top of the view and its distance from the view's top. */
  const captureAnchor = () => {
    const el = box.current;
    for (const child of el.querySelectorAll('.message')) {
      if (child.offsetTop + child.offsetHeight > el.scrollTop) {
        p.anchor = { id: child.dataset.id, delta: child.offsetTop - el.scrollTop, top: child.offsetTop };
        return;
      }
    }
  };

  /** Puts the view where it belongs: at the bottom, or with the anchor message where it
   * was (moved by as much as what changed above it, so a scroll under way goes on). */
  const restore = () => {
    const el = box.current;
    if (!el) return;
    if (p.stick) { el.scrollTop = el.scrollHeight; return; }
    const a = p.anchor;
    const target = a && el.querySelector(`.message[data-id="${a.id}"]`);
    if (!target) return;
    if (a.top === undefined) el.scrollTop = scrollFor(target.offsetTop, a.delta);
    else if (target.offsetTop !== a.top) el.scrollTop += target.offsetTop - a.top;
    a.top = target.offsetTop;
  };

  const checkRead = () => {
    const el = box.current;
    if (!el || document.visibilityState !== 'visible') return;
    const rows = [];
    let lastVisible = 0;
    for (const child of el.querySelectorAll('.message')) {
      const top = child.offsetTop - el.scrollTop;
      if (top < el.clientHeight) lastVisible = Number(child.dataset.id);
      if (child.classList.contains('unread')) rows.push({ id: Number(child.dataset.id), top, bottom: top + child.offsetHeight });
    }
    p.lastVisible = lastVisible;
    for (const id of seenRows(rows, el.clientHeight, p.looked)) markSeen(id);
  };

  const shift = (newStart, newEnd) => {
    captureAnchor();
    p.from = ids[newStart];
    p.to = ids[newEnd];
    rerender((n) => n + 1);
  };

  const checkEdges = () => {
    const el = box.current;
    if (!el || !ids.length || p.from === null) return;
    const fromBottom = el.scrollHeight - el.scrollTop - el.clientHeight;
    if (el.scrollTop < EDGE_PX) {
      if (start > 0) {
        const s = Math.max(0, start - STEP);
        shift(s, Math.min(end, s + WINDOW - 1));
      } else if (!view.foundOldest && !view.loading) {
        loadOlder(narrow.key, narrow.ops);
      }
    } else if (fromBottom < EDGE_PX) {
      if (end < ids.length - 1) {
        const e = Math.min(ids.length - 1, end + STEP);
        shift(Math.max(start, e - WINDOW + 1), e);
      } else if (!view.foundNewest && !view.loading) {
        loadNewer(narrow.key, narrow.ops);
      }
    }
  };

  const onScrolled = () => {
    const el = box.current;
    if (!el) return;
    const wasStuck = p.stick;
    p.stick = atEnd && atBottom(el.scrollTop, el.scrollHeight, el.clientHeight);
    if (p.stick) p.arrivedBelow = false;
    if (!p.stick) captureAnchor();
    checkRead();
    checkEdges();
    if (wasStuck !== p.stick) rerender((n) => n + 1);
  };

  // After each render: land (once), then keep the view where it belongs.
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    if (!p.landed && view.loaded) {
      p.landed = true;
      const spot = landing(firstUnread(ids.slice(start, end + 1)), el.clientHeight);
      if (spot.stick) p.stick = atEnd;
      else p.anchor = { id: String(spot.anchorId), delta: spot.offset };
      if (!atEnd && spot.stick) p.anchor = { id: String(ids[end]), delta: 0 };
    }
    restore();
    if (p.landed && !p.stick && atEnd && atBottom(el.scrollTop, el.scrollHeight, el.clientHeight)) p.stick = true;
    checkRead();   // every row is looked at where it first shows (a jump past it counts)
  });

  // Content that changes size (images, "show more", fonts) keeps the view in place.
  useEffect(() => {
    const observer = new ResizeObserver(() => { restore(); requestAnimationFrame(checkRead); });
    observer.observe(inner.current);
    observer.observe(box.current);
    const onVisible = () => { if (document.visibilityState === 'visible') checkRead(); };
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onVisible);
    return () => { observer.disconnect(); document.removeEventListener('visibilitychange', onVisible); window.removeEventListener('focus', onVisible); };
  }, []);

  // After each render: a window at an edge may need the next step (no scroll event comes
  // when the person stays still at the top while an older page arrives), and what is in
  // view now may have been read.
  useEffect(() => {
    const t = setTimeout(() => { checkEdges(); checkRead(); }, 50);
    return () => clearTimeout(t);
  });

  const toNewest = () => {
    p.stick = true;
    p.arrivedBelow = false;
    p.from = null;
    if (!view.foundNewest) loadNewest(narrow.key, narrow.ops);
    rerender((n) => n + 1);
  };
  const lastJump = useRef(jump);
  useEffect(() => { if (jump !== lastJump.current) { lastJump.current = jump; toNewest(); } }, [jump]);

  let ticking = false;
  const onScroll = () => {
    if (ticking) return;
    ticking = true;
    requestAnimationFrame(() => { ticking = false; onScrolled(); });
  };

  const rows = [];
  let previous = null;
  let previousSender = null;
  for (let i = start; i <= end && ids.length; i += 1) {
    const m = state.messages.get(ids[i]);
    if (!m) continue;
    const conv = conversationOf(m);
    if (conv !== previous) rows.push(html`<${RecipientBar} key=${'h' + m.id} message=${m} />`);
    const match = view.matches.get(m.id);
    rows.push(html`<${Message} key=${m.id} message=${m} match=${match} unread=${state.unread.has(m.id)}
      starred=${state.starred.has(m.id)} selected=${selected === m.id}
      continued=${conv === previous && previousSender === m.sender_id} onSelect=${setSelected} actions=${actions} />`);
    previous = conv;
    previousSender = m.sender_id;
  }

  const below = p.stick ? 0 : unreadAfter(ids, p.lastVisible);
  const more = !p.stick && p.landed && (below > 0 || p.arrivedBelow || !atEnd);
  const status = view.error
    ? html`<p class="list-status" role="alert">Could not load messages: ${view.error}</p>`
    : (view.loading && !view.loaded ? html`<p class="list-status">Loading…</p>` : null);
  return html`<div class="list-frame">
    <section class="messages" ref=${box} onScroll=${onScroll} aria-label="Messages" aria-busy=${!!view.loading} tabindex="-1">
      <div class="messages-inner" ref=${inner}>
        ${start === 0 && view.foundOldest && view.loaded ? html`<p class="list-edge">${!ids.length ? 'No messages here yet.' : narrow.query !== undefined ? 'Every match is shown.' : 'The beginning of this conversation'}</p>` : null}
        ${start > 0 || (!view.foundOldest && view.loaded) ? html`<p class="list-edge">Loading older messages…</p>` : null}
        ${status}
        ${rows}
        ${end < ids.length - 1 || (!view.foundNewest && view.loaded) ? html`<p class="list-edge">Loading newer messages…</p>` : null}
      </div>
    </section>
    ${more ? html`<button type="button" class="more-below" onClick=${toNewest}>
      <span aria-hidden="true">↓ </span>${below ? `${below} new message${below === 1 ? '' : 's'} below` : p.arrivedBelow ? 'New messages below' : 'Jump to the newest'}</button>` : null}
  </div>`;
}
