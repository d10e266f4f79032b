// Events applied to the state: one handler per event type, each changing `state` (and
// nothing else: no requests, no DOM), so that the whole of what an event does can be
// tested without a browser (web/test/reducer.test.js).
import { matches, opsOfKey, isSearchKey } from './narrow.js';
import {
  state, changed, rememberMessages, markReadLocally, dmKey, messageDmKey, noteTopic,
  topicKey, setPresences,
} from './store.js';

const TYPING_EXPIRY_MS = 15_000;

/** Applies a batch of events; returns the messages that arrived in it (for notifications). */
export function applyEvents(events) {
  const arrived = [];
  for (const event of events) {
    const handler = HANDLERS[event.type];
    if (handler) handler(event, arrived);
  }
  changed();
  return arrived;
}

function replace(id, update) {
  const m = state.messages.get(id);
  if (m) state.messages.set(id, { ...m, ...update(m) });
}

/** The loaded narrows that are kept live (the newest page loaded, not a search). */
function liveViews() {
  const out = [];
  for (const [key, view] of state.narrows) {
    if (!view.loaded || !view.foundNewest || isSearchKey(key)) continue;
    out.push([opsOfKey(key), view]);
  }
  return out;
}

function insertSorted(ids, id) {
  if (ids.includes(id)) return ids;
  if (!ids.length || ids[ids.length - 1] < id) return [...ids, id];
  return [...ids, id].sort((a, b) => a - b);
}

function unreadEntry(m) {
  return m.type === 'stream' ? { kind: 'stream', stream_id: m.stream_id, topic: m.subject } : { kind: 'dm', key: messageDmKey(m) };
}

export function conversationOf(message) {
  return message.type === 'stream' ? `s:${message.stream_id}:${message.subject.toLowerCase()}` : `d:${messageDmKey(message)}`;
}

const HANDLERS = {
  message(event, arrived) {
    const m = { ...event.message, flags: event.flags || [] };
    rememberMessages([m]);
    for (const [ops, view] of liveViews()) if (matches(ops, m)) view.ids = insertSorted(view.ids, m.id);
    // A narrow whose page is still on its way may not hold this message: kept until the
    // page lands (messages.js, settleArrivals), or it would never show without a reload.
    for (const [key, view] of state.narrows) {
      if (view.loading && !(view.loaded && view.foundNewest) && !isSearchKey(key) && matches(opsOfKey(key), m)) (view.arrived ||= []).push(m.id);
    }
    if (!m.flags.includes('read')) {
      state.unread.set(m.id, unreadEntry(m));
      if (m.flags.includes('mentioned') || m.flags.includes('wildcard_mentioned')) state.mentions.add(m.id);
    }
    if (m.type === 'private') state.recentDms.set(messageDmKey(m), m.id);
    const typers = state.typing.get(conversationOf(m));
    if (typers) typers.delete(m.sender_id);
    arrived.push(m);
  },
  update_message(event) {
    if (event.rendered_content !== undefined) {
      replace(event.message_id, () => ({ content: event.rendered_content, last_edit_timestamp: event.edit_timestamp, is_me_message: event.is_me_message }));
    }
    const moved = event.new_stream_id !== undefined || event.subject !== undefined;
    if (!moved) return;
    const ids = event.message_ids || [event.message_id];
    const movedIds = new Set(ids);
    for (const id of ids) {
      replace(id, (m) => ({
        stream_id: event.new_stream_id ?? m.stream_id,
        subject: event.subject ?? m.subject,
        display_recipient: event.new_stream_id !== undefined ? (state.streams.get(event.new_stream_id) || {}).name : m.display_recipient,
      }));
      const entry = state.unread.get(id);
      if (entry && entry.kind === 'stream') state.unread.set(id, { ...entry, stream_id: event.new_stream_id ?? entry.stream_id, topic: event.subject ?? entry.topic });
    }
    // Moved messages leave the narrows they no longer match, and join loaded ones they
    // now do (within what each has loaded).
    for (const [key, view] of state.narrows) {
      if (isSearchKey(key)) continue;
      const ops = opsOfKey(key);
      const kept = view.ids.filter((id) => !movedIds.has(id) || matches(ops, state.messages.get(id) || {}));
      const first = view.ids[0];
      for (const id of ids) {
        const m = state.messages.get(id);
        if (m && view.loaded && !kept.includes(id) && matches(ops, m) && (view.foundOldest || id > first)
          && (view.foundNewest || id < view.ids[view.ids.length - 1])) kept.push(id);
      }
      view.ids = kept.sort((a, b) => a - b);
    }
    const target = event.new_stream_id ?? event.stream_id;
    if (target !== undefined && event.subject !== undefined) noteTopic(target, event.subject, Math.max(...ids));
    if (event.stream_id !== undefined) state.topics.delete(event.stream_id);
  },
  delete_message(event) {
    const ids = new Set(event.message_ids || [event.message_id]);
    for (const id of ids) { state.messages.delete(id); state.unread.delete(id); state.mentions.delete(id); state.starred.delete(id); }
    for (const view of state.narrows.values()) view.ids = view.ids.filter((id) => !ids.has(id));
  },
  reaction(event) {
    replace(event.message_id, (m) => {
      const others = (m.reactions || []).filter((r) => !(r.user_id === event.user_id && r.emoji_code === event.emoji_code && r.reaction_type === event.reaction_type));
      return { reactions: event.op === 'add' ? [...others, { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type, user_id: event.user_id }] : others };
    });
  },
  update_message_flags(event) {
    const op = event.op || event.operation;
    if (event.flag === 'read') {
      readFlags(event, op);
      return;
    }
    for (const id of event.messages) replace(id, (m) => ({ flags: op === 'add' ? [...new Set([...(m.flags || []), event.flag])] : (m.flags || []).filter((f) => f !== event.flag) }));
    if (event.flag === 'starred') starredFlags(event.messages, op === 'add');
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
    if (event.op === 'add') for (const s of event.subscriptions) { state.subs.set(s.stream_id, s); state.streams.set(s.stream_id, { ...state.streams.get(s.stream_id), ...s }); }
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
      const { new_email: email, ...fields } = person;
      if (u) state.users.set(person.user_id, { ...u, ...fields, ...(email ? { email } : {}) });
    } else if (event.op === 'remove') state.users.delete(person.user_id);
  },
  user_group(event) {
    if (event.op === 'add') state.groups.set(event.group.id, event.group);
    else if (event.op === 'remove') state.groups.delete(event.group_id);
    else {
      const g = state.groups.get(event.group_id);
      if (!g) return;
      const next = { ...g };
      if (event.op === 'update') Object.assign(next, event.data);
      if (event.op === 'add_members') next.members = [...new Set([...(g.members || []), ...event.user_ids])];
      if (event.op === 'remove_members') next.members = (g.members || []).filter((id) => !event.user_ids.includes(id));
      if (event.op === 'add_subgroups') next.direct_subgroup_ids = [...new Set([...(g.direct_subgroup_ids || []), ...event.direct_subgroup_ids])];
      if (event.op === 'remove_subgroups') next.direct_subgroup_ids = (g.direct_subgroup_ids || []).filter((id) => !event.direct_subgroup_ids.includes(id));
      state.groups.set(event.group_id, next);
    }
  },
  user_settings(event) {
    if (event.op === 'update') state.settings = { ...state.settings, [event.property]: event.value };
  },
  realm(event) {
    if (event.op === 'update') state.realm = { ...state.realm, [`realm_${event.property}`]: event.value };
    else if (event.op === 'update_dict') {
      const next = { ...state.realm };
      for (const [k, v] of Object.entries(event.data || {})) next[`realm_${k}`] = v;
      state.realm = next;
    }
  },
  realm_emoji(event) {
    state.realmEmoji = event.realm_emoji;
  },
};

function readFlags(event, op) {
  if (op === 'add') {
    if (event.all) state.unread.clear();
    markReadLocally(event.messages);
    return;
  }
  for (const id of event.messages) {
    const d = (event.message_details || {})[id];
    if (!d) continue;
    state.unread.set(id, d.type === 'stream' ? { kind: 'stream', stream_id: d.stream_id, topic: d.topic } : { kind: 'dm', key: dmKey(d.user_ids || []) });
    if (d.mentioned) state.mentions.add(id);
    replace(id, (m) => ({ flags: (m.flags || []).filter((f) => f !== 'read') }));
  }
}

/** Starring changes the starred set and the loaded starred narrow (which is no search). */
function starredFlags(ids, added) {
  for (const id of ids) { if (added) state.starred.add(id); else state.starred.delete(id); }
  const view = state.narrows.get(STARRED_KEY);
  if (!view || !view.loaded) return;
  if (added) for (const id of ids) { if (state.messages.has(id)) view.ids = insertSorted(view.ids, id); }
  else view.ids = view.ids.filter((id) => !ids.includes(id));
}

export const STARRED_KEY = JSON.stringify([['is', 'starred', false]]);

/** Who is typing in a conversation (by its typing key), past their expiry left out. */
export function typersIn(key) {
  const typers = state.typing.get(key);
  if (!typers) return [];
  const now = Date.now();
  return [...typers].filter(([id, until]) => until > now && id !== state.me).map(([id]) => id);
}
