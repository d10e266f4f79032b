// Messages: loading a narrow a page at a time, sending, editing, reactions, read state,
// and applying the events that change them.
import { api } from './api.js';
import { apiNarrow, matches } from './narrow.js';
import { sanitizeAhead } from './sanitize.js';
import {
  state, changed, rememberMessages, markReadLocally, dmKey, messageDmKey, noteTopic,
  topicKey, setPresences,
} from './store.js';

export const FIRST_PAGE = 60;
export const PAGE = 200;

export function narrowState(key) {
  let view = state.narrows.get(key);
  if (!view) {
    view = { ids: [], foundOldest: false, foundNewest: false, loading: null, error: null, matches: new Map(), loaded: false };
    state.narrows.set(key, view);
  }
  return view;
}

async function fetchPage(ops, anchor, numBefore, numAfter) {
  return api('GET', '/messages', {
    anchor: String(anchor), num_before: numBefore, num_after: numAfter,
    narrow: JSON.stringify(apiNarrow(ops)), apply_markdown: true, include_anchor: anchor === 'newest',
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

/** The newest page of a narrow (once; events keep it current after that). */
export function loadNarrow(key, ops) {
  const view = narrowState(key);
  if (view.loaded || view.loading) return view.loading;
  view.loading = fetchPage(ops, 'newest', FIRST_PAGE, 0).then((data) => {
    absorb(view, data);
    view.foundOldest = data.found_oldest;
    view.foundNewest = true;
    view.loaded = true;
    view.error = null;
  }).catch((error) => { view.error = error.message; }).finally(() => { view.loading = null; changed(); });
  changed();
  return view.loading;
}

/** After the first registration: each narrow loaded before the queue existed is fetched
 * again (its newest page), so nothing that changed in between is missed. */
export async function refreshLoadedNarrows() {
  for (const [key, view] of state.narrows) {
    if (!view.loaded || key.startsWith('q:')) continue;
    const ops = JSON.parse(key).map(([operator, operand, negated]) => ({ operator, operand, negated }));
    try {
      const data = await fetchPage(ops, 'newest', FIRST_PAGE, 0);
      const fresh = new Set(data.messages.map((m) => m.id));
      const oldest = data.found_oldest ? 0 : Math.min(...fresh);
      view.ids = view.ids.filter((id) => id < oldest || fresh.has(id));
      for (const m of data.messages) state.messages.delete(m.id);
      absorb(view, data);
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
  }).catch((error) => { view.error = error.message; }).finally(() => { view.loading = null; changed(); });
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
    return m ? matches(ops, m) : unreadEntryMatches(state.unread.get(id), ops);
  });
  markReadLocally(ids);
  await api('POST', '/messages/flags/narrow', {
    anchor: 'oldest', include_anchor: true, num_before: 0, num_after: 5000,
    narrow: JSON.stringify(apiNarrow(ops)), op: 'add', flag: 'read',
  }, { retry: true });
}

function unreadEntryMatches(entry, ops) {
  for (const o of ops) {
    if (o.operator === 'channel' && !(entry.kind === 'stream' && entry.stream_id === o.operand)) return false;
    if (o.operator === 'topic' && !(entry.kind === 'stream' && entry.topic.toLowerCase() === String(o.operand).toLowerCase())) return false;
    if (o.operator === 'dm' && !(entry.kind === 'dm' && entry.key === dmKey(o.operand))) return false;
  }
  return true;
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

// ---- events ----------------------------------------------------------------------

const TYPING_EXPIRY_MS = 15_000;

export function applyEvents(events, narrowOps) {
  for (const event of events) {
    const handler = HANDLERS[event.type];
    if (handler) handler(event, narrowOps);
  }
  changed();
}

function replace(id, update) {
  const m = state.messages.get(id);
  if (m) state.messages.set(id, { ...m, ...update(m) });
}

function liveNarrows(message) {
  const out = [];
  for (const [key, view] of state.narrows) {
    if (!view.loaded || !view.foundNewest || key.startsWith('q:')) continue;
    const ops = JSON.parse(key).map(([operator, operand, negated]) => ({ operator, operand, negated }));
    if (matches(ops, message)) out.push(view);
  }
  return out;
}

const HANDLERS = {
  message(event) {
    const m = { ...event.message, flags: event.flags };
    rememberMessages([m]);
    for (const view of liveNarrows(m)) if (!view.ids.includes(m.id)) view.ids.push(m.id);
    if (!event.flags.includes('read')) {
      state.unread.set(m.id, m.type === 'stream' ? { kind: 'stream', stream_id: m.stream_id, topic: m.subject } : { kind: 'dm', key: messageDmKey(m) });
      if (event.flags.includes('mentioned') || event.flags.includes('wildcard_mentioned')) state.mentions.add(m.id);
    }
    if (m.type === 'private') state.recentDms.set(messageDmKey(m), m.id);
    const typers = state.typing.get(conversationOf(m));
    if (typers) typers.delete(m.sender_id);
  },
  update_message(event) {
    if (event.rendered_content !== undefined) {
      replace(event.message_id, () => ({ content: event.rendered_content, last_edit_timestamp: event.edit_timestamp, is_me_message: event.is_me_message }));
    }
    const moved = event.new_stream_id !== undefined || event.subject !== undefined;
    if (!moved) return;
    const ids = event.message_ids || [event.message_id];
    for (const id of ids) {
      replace(id, (m) => ({
        stream_id: event.new_stream_id ?? m.stream_id,
        subject: event.subject ?? m.subject,
        display_recipient: event.new_stream_id !== undefined ? (state.streams.get(event.new_stream_id) || {}).name : m.display_recipient,
      }));
      const entry = state.unread.get(id);
      if (entry && entry.kind === 'stream') state.unread.set(id, { ...entry, stream_id: event.new_stream_id ?? entry.stream_id, topic: event.subject ?? entry.topic });
    }
    // Moved messages leave the narrows they no longer match, and join live ones they do.
    for (const [key, view] of state.narrows) {
      if (key.startsWith('q:')) continue;
      const ops = JSON.parse(key).map(([operator, operand, negated]) => ({ operator, operand, negated }));
      const kept = view.ids.filter((id) => !ids.includes(id) || matches(ops, state.messages.get(id) || {}));
      for (const id of ids) {
        const m = state.messages.get(id);
        if (m && view.loaded && !kept.includes(id) && matches(ops, m) && (view.foundOldest || id > view.ids[0])) kept.push(id);
      }
      view.ids = kept.sort((a, b) => a - b);
    }
    const target = event.new_stream_id ?? event.stream_id;
    if (target !== undefined && event.subject !== undefined) noteTopic(target, event.subject, Math.max(...ids));
    if (event.stream_id !== undefined) state.topics.delete(event.stream_id);
  },
  delete_message(event) {
    const ids = event.message_ids || [event.message_id];
    for (const id of ids) { state.messages.delete(id); state.unread.delete(id); state.mentions.delete(id); }
    for (const view of state.narrows.values()) view.ids = view.ids.filter((id) => !ids.includes(id));
  },
  reaction(event) {
    replace(event.message_id, (m) => {
      const others = (m.reactions || []).filter((r) => !(r.user_id === event.user_id && r.emoji_code === event.emoji_code && r.reaction_type === event.reaction_type));
      return { reactions: event.op === 'add' ? [...others, { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type, user_id: event.user_id }] : others };
    });
  },
  update_message_flags(event) {
    const op = event.op || event.operation;
    if (event.flag !== 'read') {
      for (const id of event.messages) replace(id, (m) => ({ flags: op === 'add' ? [...new Set([...(m.flags || []), event.flag])] : (m.flags || []).filter((f) => f !== event.flag) }));
      return;
    }
    if (op === 'add') {
      if (event.all) state.unread.clear();
      markReadLocally(event.messages);
      return;
    }
    for (const id of event.messages) {
      const d = (event.message_details || {})[id];
      if (!d) continue;
      state.unread.set(id, d.type === 'stream' ? { kind: 'stream', stream_id: d.stream_id, topic: d.topic } : { kind: 'dm', key: dmKey(d.user_ids || []) });
      replace(id, (m) => ({ flags: (m.flags || []).filter((f) => f !== 'read') }));
    }
  },
  typing(event) {
    const key = event.message_type === 'stream' ? `s:${event.stream_id}:${event.topic.toLowerCase()}` : `d:${dmKey([...event.recipients.map((r) => r.user_id)])}`;
    const typers = state.typing.get(key) || new Map();
    if (event.op === 'start') typers.set(event.sender.user_id, Date.now() + TYPING_EXPIRY_MS);
    else typers.delete(event.sender.user_id);
    state.typing.set(key, typers);
  },
  presence(event) {
    setPresences({ [event.user_id]: event.presence });
  },
  user_status(event) {
    const known = state.statuses.get(event.user_id) || {};
    const next = { ...known };
    for (const field of ['away', 'status_text', 'emoji_name', 'emoji_code', 'reaction_type']) if (event[field] !== undefined) next[field] = event[field];
    state.statuses.set(event.user_id, next);
  },
  user_topic(event) {
    state.userTopics.set(topicKey(event.stream_id, event.topic_name), event.visibility_policy);
  },
  subscription(event) {
    if (event.op === 'add') for (const s of event.subscriptions) { state.subs.set(s.stream_id, s); state.streams.set(s.stream_id, s); }
    else if (event.op === 'remove') for (const s of event.subscriptions) state.subs.delete(s.stream_id);
    else if (event.op === 'update') {
      const s = state.subs.get(event.stream_id);
      if (s) state.subs.set(event.stream_id, { ...s, [event.property]: event.value });
    }
  },
  stream(event) {
    if (event.op === 'create') for (const s of event.streams) state.streams.set(s.stream_id, s);
    else if (event.op === 'delete') for (const s of event.streams) { state.streams.delete(s.stream_id); state.subs.delete(s.stream_id); }
    else if (event.op === 'update') {
      for (const map of [state.streams, state.subs]) {
        const s = map.get(event.stream_id);
        if (s) map.set(event.stream_id, { ...s, [event.property]: event.value });
      }
    }
  },
  realm_user(event) {
    const person = event.person;
    if (event.op === 'add') state.users.set(person.user_id, person);
    else if (event.op === 'update') {
      const u = state.users.get(person.user_id);
      // new_email: the person's API address moved (email_address_visibility).
      const { new_email: email, ...changed } = person;
      if (u) state.users.set(person.user_id, { ...u, ...changed, ...(email ? { email } : {}) });
    }
  },
  user_settings(event) {
    if (event.op === 'update') state.settings = { ...state.settings, [event.property]: event.value };
  },
  realm_emoji(event) {
    state.realmEmoji = event.realm_emoji;
  },
};

export function conversationOf(message) {
  return message.type === 'stream' ? `s:${message.stream_id}:${message.subject.toLowerCase()}` : `d:${messageDmKey(message)}`;
}

export function typersIn(key) {
  const typers = state.typing.get(key);
  if (!typers) return [];
  const now = Date.now();
  return [...typers].filter(([id, until]) => until > now && id !== state.me).map(([id]) => id);
}
