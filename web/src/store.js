// The client's state, built from POST /register and kept current by events. Components
// follow `version` (bumped once per batch of changes) and read the state directly.
import { signal } from './signal.js';

export const version = signal(0);
let pending = false;

/** Marks the state changed; listeners run once per microtask, however many changes. */
export function changed() {
  if (pending) return;
  pending = true;
  queueMicrotask(() => { pending = false; version.value += 1; });
}

export const state = {
  me: 0,
  realm: {},
  settings: {},
  users: new Map(),          // user_id -> user
  subs: new Map(),           // stream_id -> subscription
  streams: new Map(),        // stream_id -> stream (any the user can see)
  unread: new Map(),         // message id -> {kind: 'stream', stream_id, topic} | {kind: 'dm', key}
  mentions: new Set(),
  topics: new Map(),         // stream_id -> [{name, max_id}]
  recentDms: new Map(),      // conversation key -> max message id
  userTopics: new Map(),     // `${stream_id}:${topic lowercased}` -> visibility_policy
  presence: new Map(),       // user_id -> {status, timestamp}
  statuses: new Map(),       // user_id -> {status_text, emoji_name, emoji_code, away}
  typing: new Map(),         // conversation key -> Map(user_id -> expiry ms)
  messages: new Map(),       // id -> message (shared by every narrow)
  narrows: new Map(),        // narrow key -> {ids, foundOldest, foundNewest, matches}
  starred: new Set(),        // message ids
  groups: new Map(),         // user group id -> group
  realmEmoji: {},
  connection: 'connecting',
  generation: 0,
  registered: false,
};

export const MUTED = 1;

/** Forgets everything (logging out): the next session starts from nothing. */
export function resetState() {
  Object.assign(state, {
    me: 0, realm: {}, settings: {}, users: new Map(), subs: new Map(), streams: new Map(),
    unread: new Map(), mentions: new Set(), topics: new Map(), recentDms: new Map(),
    userTopics: new Map(), presence: new Map(), statuses: new Map(), typing: new Map(),
    messages: new Map(), narrows: new Map(), starred: new Set(), groups: new Map(), realmEmoji: {}, connection: 'connecting',
    generation: state.generation + 1, registered: false,
  });
  changed();
}

/** A narrow's loaded messages (ascending ids) and how far they reach.
 * (Made on first use.) */
export function narrowState(key) {
  let view = state.narrows.get(key);
  if (!view) {
    view = { ids: [], foundOldest: false, foundNewest: false, loading: null, error: null, matches: new Map(), loaded: false, anchor: null, arrived: [] };
    state.narrows.set(key, view);
  }
  return view;
}

export function topicKey(streamId, topic) {
  return `${streamId}:${String(topic).toLowerCase()}`;
}

export function isMuted(streamId, topic) {
  return state.userTopics.get(topicKey(streamId, topic)) === MUTED;
}

/** A direct conversation's key: the other participants' ids, sorted (yourself alone: your id). */
export function dmKey(userIds) {
  const others = [...new Set(userIds.map(Number))].filter((id) => id !== state.me).sort((a, b) => a - b);
  return others.length ? others.join(',') : String(state.me);
}

export function messageDmKey(message) {
  return dmKey(message.display_recipient.map((r) => r.id));
}

export function userName(id) {
  const user = state.users.get(id);
  return user ? user.full_name : `User ${id}`;
}

export function loadRegistration(data) {
  // A registration after the first (an expired queue) starts the views afresh; the
  // first keeps what was fetched while it was on its way (refreshed after it).
  const again = state.registered;
  state.registered = true;
  if (again) state.generation += 1;
  state.me = data.user_id;
  state.realm = data;
  state.settings = data.user_settings || {};
  state.users = new Map(data.realm_users.map((u) => [u.user_id, u]));
  for (const bot of data.realm_bots || []) if (!state.users.has(bot.user_id)) state.users.set(bot.user_id, { ...bot, is_bot: true });
  state.subs = new Map(data.subscriptions.map((s) => [s.stream_id, s]));
  state.streams = new Map((data.streams || data.subscriptions).map((s) => [s.stream_id, s]));
  for (const s of data.subscriptions) state.streams.set(s.stream_id, s);
  state.unread = new Map();
  for (const entry of data.unread_msgs.streams) {
    for (const id of entry.unread_message_ids) state.unread.set(id, { kind: 'stream', stream_id: entry.stream_id, topic: entry.topic });
  }
  for (const entry of data.unread_msgs.pms) {
    const key = dmKey([entry.other_user_id ?? entry.sender_id]);
    for (const id of entry.unread_message_ids) state.unread.set(id, { kind: 'dm', key });
  }
  for (const entry of data.unread_msgs.huddles) {
    const key = dmKey(entry.user_ids_string.split(',').map(Number));
    for (const id of entry.unread_message_ids) state.unread.set(id, { kind: 'dm', key });
  }
  state.mentions = new Set(data.unread_msgs.mentions);
  state.recentDms = new Map(data.recent_private_conversations.map((c) => [dmKey(c.user_ids), c.max_message_id]));
  state.userTopics = new Map(data.user_topics.map((t) => [topicKey(t.stream_id, t.topic_name), t.visibility_policy]));
  state.presence = new Map();
  for (const [id, p] of Object.entries(data.presences || {})) state.presence.set(Number(id), presenceOf(p));
  state.statuses = new Map(Object.entries(data.user_status || {}).map(([id, s]) => [Number(id), s]));
  state.realmEmoji = data.realm_emoji || {};
  state.starred = new Set(data.starred_messages || []);
  state.groups = new Map((data.realm_user_groups || []).map((g) => [g.id, g]));
  state.topics = new Map();
  state.typing = new Map();
  if (again) {
    state.messages = new Map();
    state.narrows = new Map();
  }
  changed();
}

function presenceOf(p) {
  // slim presence: {active_timestamp, idle_timestamp}; legacy: {website: {status, timestamp}}
  if ('active_timestamp' in p) return { active: p.active_timestamp, idle: p.idle_timestamp };
  const latest = p.aggregated || p.website || Object.values(p)[0] || {};
  return latest.status === 'active' ? { active: latest.timestamp, idle: latest.timestamp } : { active: 0, idle: latest.timestamp || 0 };
}

export function setPresences(presences) {
  for (const [id, p] of Object.entries(presences || {})) state.presence.set(Number(id), presenceOf(p));
  changed();
}

/** 'active', 'idle' or 'offline', as the reference's thresholds say. */
export function presenceStatus(userId) {
  const p = state.presence.get(userId);
  if (!p) return 'offline';
  const offline = (state.realm.server_presence_offline_threshold_seconds || 140);
  const now = Date.now() / 1000;
  if (p.active && now - p.active < offline) return 'active';
  if (p.idle && now - p.idle < offline) return 'idle';
  return 'offline';
}

export function rememberMessages(messages) {
  for (const m of messages) {
    const known = state.messages.get(m.id);
    state.messages.set(m.id, known ? { ...known, ...m } : m);
    if (m.type === 'stream') noteTopic(m.stream_id, m.subject, m.id);
  }
}

export function noteTopic(streamId, topic, id) {
  const list = state.topics.get(streamId);
  if (!list) return;
  const found = list.find((t) => t.name.toLowerCase() === topic.toLowerCase());
  if (found) found.max_id = Math.max(found.max_id, id);
  else list.push({ name: topic, max_id: id });
  list.sort((a, b) => b.max_id - a.max_id);
}

export function markReadLocally(ids) {
  let any = false;
  for (const id of ids) {
    any = state.unread.delete(id) || any;
    state.mentions.delete(id);
    const m = state.messages.get(id);
    if (m && m.flags && !m.flags.includes('read')) state.messages.set(id, { ...m, flags: [...m.flags, 'read'] });
  }
  if (any) changed();
}

export function isUnread(message) {
  return state.unread.has(message.id);
}
