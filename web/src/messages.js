// Messages: loading a narrow a page at a time, sending, editing, reactions, read state,
// and applying the events that change them.
import { api } from './api.js';
import { apiNarrow, isSearchKey, matches, opsOfKey } from './narrow.js';
import { sanitizeAhead } from './sanitize.js';
import {
  state, changed, rememberMessages, markReadLocally, messageDmKey, narrowState, setPresences,
} from './store.js';
import { entryMatches, firstUnreadIn } from './unread.js';

// The first page: some context before the first unread message, and what follows it.
export const FIRST_BEFORE = 20;
export const FIRST_AFTER = 50;
export const PAGE = 200;
export { narrowState };

async function fetchPage(ops, anchor, numBefore, numAfter) {
  return api('GET', '/messages', {
    anchor: String(anchor), num_before: numBefore, num_after: numAfter,
    narrow: JSON.stringify(apiNarrow(ops)), apply_markdown: true, include_anchor: true,
  });
}

function absorb(view, data) {
  rememberMessages(data.messages);
  sanitizeAhead(data.messages.map((m) => m.match_content ?? m.content));
  for (const m of data.messages) {
    if (m.match_content !== undefined) view.matches.set(m.id, { content: m.match_content, subject: m.match_subject });
    if (m.flags && !m.flags.includes('read') && !state.unread.has(m.id)) {
      state.unread.set(m.id, m.type === 'stream' ? { kind: 'stream', stream_id: m.stream_id, topic: m.subject } : { kind: 'dm', key: messageDmKey(m) });
    }
  }
  const ids = new Set(view.ids);
  for (const m of data.messages) ids.add(m.id);
  view.ids = [...ids].sort((a, b) => a - b);
}

/** Messages that arrived while a page was on its way join the view once it reaches the
 * newest message (they are newer than anything the page could hold, or in it already);
 * otherwise a later page brings them. */
function settleArrivals(view) {
  const arrived = view.arrived || [];
  view.arrived = [];
  if (!view.foundNewest || !arrived.length) return;
  view.ids = [...new Set([...view.ids, ...arrived])].sort((a, b) => a - b);
}

/** A narrow's first page, around its first unread message (the newest messages when
 * nothing is unread; a search: its newest matches). Once: events keep it current. */
export function loadNarrow(key, ops, { newest = false } = {}) {
  const view = narrowState(key);
  if (view.loaded || view.loading) return view.loading;
  // Where it opens: the first unread message the registration knows of (an id: one query
  // for the server), else the server's first_unread (before the registration, or a
  // narrow the unread state cannot tell), else the newest.
  const known = isSearchKey(key) || newest ? undefined : firstUnreadIn(ops);
  const anchor = isSearchKey(key) || newest || known === null ? 'newest' : known ?? 'first_unread';
  view.loading = fetchPage(ops, anchor, FIRST_BEFORE + (anchor === 'newest' ? FIRST_AFTER : 0), anchor === 'newest' ? 0 : FIRST_AFTER).then((data) => {
    absorb(view, data);
    view.foundOldest = data.found_oldest;
    view.foundNewest = data.found_newest || anchor === 'newest';
    view.anchor = typeof data.anchor === 'number' ? data.anchor : null;
    view.loaded = true;
    view.error = null;
  }).catch((error) => { view.error = error.message; }).finally(() => { settleArrivals(view); view.loading = null; changed(); });
  changed();
  return view.loading;
}

/** Forgets a narrow's messages and loads its newest page (a jump to the present). */
export function loadNewest(key, ops) {
  const view = narrowState(key);
  if (view.loading) return view.loading;
  view.loading = fetchPage(ops, 'newest', FIRST_BEFORE + FIRST_AFTER, 0).then((data) => {
    view.ids = [];
    absorb(view, data);
    view.foundOldest = data.found_oldest;
    view.foundNewest = true;
    view.loaded = true;
    view.error = null;
  }).catch((error) => { view.error = error.message; }).finally(() => { settleArrivals(view); view.loading = null; changed(); });
  changed();
  return view.loading;
}

/** After the first registration: each narrow loaded before the queue existed is fetched
 * again (the page it showed), so nothing that changed in between is missed. */
export async function refreshLoadedNarrows() {
  for (const [key, view] of state.narrows) {
    if (!view.loaded || isSearchKey(key) || !view.ids.length) continue;
    try {
      const from = view.ids[0];
      const data = await fetchPage(opsOfKey(key), from, 0, view.ids.length + FIRST_AFTER);
      const fresh = new Set(data.messages.map((m) => m.id));
      view.ids = view.ids.filter((id) => id < from || fresh.has(id));
      for (const m of data.messages) state.messages.delete(m.id);
      absorb(view, data);
      view.foundNewest = data.found_newest;
    } catch (error) { /* the view keeps what it has */ }
  }
  changed();
}

export function loadOlder(key, ops) {
  const view = narrowState(key);
  if (view.loading || view.foundOldest || !view.ids.length) return view.loading;
  view.loading = fetchPage(ops, view.ids[0], PAGE, 0).then((data) => {
    data.messages = data.messages.filter((m) => m.id !== view.ids[0]);
    absorb(view, data);
    view.foundOldest = data.found_oldest;
  }).catch((error) => { view.error = error.message; }).finally(() => { settleArrivals(view); view.loading = null; changed(); });
  return view.loading;
}

export function loadNewer(key, ops) {
  const view = narrowState(key);
  if (view.loading || view.foundNewest || !view.ids.length) return view.loading;
  const last = view.ids[view.ids.length - 1];
  view.loading = fetchPage(ops, last, 0, PAGE).then((data) => {
    data.messages = data.messages.filter((m) => m.id !== last);
    absorb(view, data);
    view.foundNewest = data.found_newest;
  }).catch((error) => { view.error = error.message; }).finally(() => { settleArrivals(view); view.loading = null; changed(); });
  return view.loading;
}

export async function loadTopics(streamId) {
  if (state.topics.has(streamId)) return;
  state.topics.set(streamId, []);
  try {
    const data = await api('GET', `/users/me/${streamId}/topics`);
    const list = state.topics.get(streamId);
    for (const t of data.topics) if (!list.some((x) => x.name.toLowerCase() === t.name.toLowerCase())) list.push({ name: t.name, max_id: t.max_id });
    list.sort((a, b) => b.max_id - a.max_id);
  } catch (error) {
    state.topics.delete(streamId);
  }
  changed();
}

// ---- writing ----------------------------------------------------------------------

export function sendMessage(target, content) {
  const params = target.type === 'stream'
    ? { type: 'stream', to: String(target.streamId), topic: target.topic, content }
    : { type: 'direct', to: JSON.stringify(target.userIds), content };
  return api('POST', '/messages', params, { retry: false });
}

export async function rawContent(id) {
  const data = await api('GET', `/messages/${id}`, { apply_markdown: false });
  return data.message.content;
}

export function editMessage(id, content) {
  return api('PATCH', `/messages/${id}`, { content }, { retry: false });
}

export function deleteMessage(id) {
  return api('DELETE', `/messages/${id}`, {}, { retry: false });
}

export function toggleReaction(message, emoji) {
  const mine = (message.reactions || []).some((r) => r.emoji_code === emoji.code && r.user_id === state.me);
  return api(mine ? 'DELETE' : 'POST', `/messages/${message.id}/reactions`,
    { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: 'unicode_emoji' }, { retry: false });
}

export function setStarred(message, starred) {
  return api('POST', '/messages/flags', { messages: JSON.stringify([message.id]), op: starred ? 'add' : 'remove', flag: 'starred' }, { retry: false });
}

/** Moves (or renames) the whole topic of message `messageId` to `toTopic`, in channel
 * `toStream` when it differs from `fromStream` (the events that follow move it here). */
export function moveTopic(messageId, { toTopic, toStream, fromStream }) {
  const params = { topic: toTopic, propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: true };
  if (toStream !== undefined && toStream !== fromStream) params.stream_id = toStream;
  return api('PATCH', `/messages/${messageId}`, params, { retry: false });
}

/** The newest message id known in a topic (one to name it by in PATCH /messages/{id}). */
export async function topicMessageId(streamId, topic) {
  const data = await api('GET', '/messages', {
    anchor: 'newest', num_before: 1, num_after: 0, apply_markdown: false,
    narrow: JSON.stringify([{ operator: 'channel', operand: streamId }, { operator: 'topic', operand: topic }]),
  });
  return data.messages.length ? data.messages[data.messages.length - 1].id : null;
}

export function renderPreview(content) {
  return api('POST', '/messages/render', { content }, { retry: true });
}

// Read state: messages seen are marked read in batches.
const toMark = new Set();
let markTimer = null;

export function markSeen(id) {
  if (!state.unread.has(id)) return;
  toMark.add(id);
  clearTimeout(markTimer);
  markTimer = setTimeout(flushRead, 250);
}

async function flushRead() {
  const ids = [...toMark];
  toMark.clear();
  if (!ids.length) return;
  markReadLocally(ids);
  await api('POST', '/messages/flags', { messages: JSON.stringify(ids), op: 'add', flag: 'read' }, { retry: true });
}

export async function markNarrowRead(ops) {
  const ids = [...state.unread.keys()].filter((id) => {
    const m = state.messages.get(id);
    return m ? matches(ops, m) : entryMatches(state.unread.get(id), ops);
  });
  markReadLocally(ids);
  await api('POST', '/messages/flags/narrow', {
    anchor: 'oldest', include_anchor: true, num_before: 0, num_after: 5000,
    narrow: JSON.stringify(apiNarrow(ops)), op: 'add', flag: 'read',
  }, { retry: true });
}

let typingState = null;   // {key, sentAt}
let typingStop = null;

export function typingTarget(target) {
  return target.type === 'stream'
    ? { key: `s:${target.streamId}:${target.topic}`, params: { type: 'stream', stream_id: target.streamId, topic: target.topic } }
    : { key: `d:${target.userIds.join(',')}`, params: { type: 'direct', to: JSON.stringify(target.userIds) } };
}

export function noteTyping(target) {
  if (!target || (target.type === 'stream' && !target.topic) || (target.type === 'direct' && !target.userIds.length)) return;
  const { key, params } = typingTarget(target);
  const now = Date.now();
  const wait = state.realm.server_typing_started_wait_period_milliseconds || 10_000;
  if (!typingState || typingState.key !== key || now - typingState.sentAt > wait) {
    typingState = { key, sentAt: now, params };
    api('POST', '/typing', { ...params, op: 'start' }, { retry: false }).catch(() => {});
  }
  clearTimeout(typingStop);
  typingStop = setTimeout(stopTyping, state.realm.server_typing_stopped_wait_period_milliseconds || 5000);
}

export function stopTyping() {
  clearTimeout(typingStop);
  if (!typingState) return;
  const { params } = typingState;
  typingState = null;
  api('POST', '/typing', { ...params, op: 'stop' }, { retry: false }).catch(() => {});
}

export async function pingPresence() {
  const status = document.hasFocus() ? 'active' : 'idle';
  try {
    const data = await api('POST', '/users/me/presence', { status, slim_presence: true, new_user_input: status === 'active' }, { retry: false });
    setPresences(data.presences);
  } catch (error) { /* the next ping tries again */ }
}

