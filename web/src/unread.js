// Unread state: the counts the sidebar, the Inbox and the title show, which unread
// messages a narrow holds, and where a narrow's reading starts. `state.unread` maps each
// unread message id to where it is ({kind: 'stream', stream_id, topic} or {kind: 'dm',
// key}), so counts need no message bodies.
import { channelOf, topicOf } from './narrow.js';
import { state, dmKey, isMuted, topicKey } from './store.js';

/** Unread counts per channel, topic and conversation, and their total (muted topics and
 * channels left aside: they are not counted, as the reference does not). */
export function unreadCounts() {
  const streams = new Map();
  const topics = new Map();
  const dms = new Map();
  let total = 0;
  for (const entry of state.unread.values()) {
    if (entry.kind === 'stream') {
      const sub = state.subs.get(entry.stream_id);
      if (!sub || sub.is_muted || isMuted(entry.stream_id, entry.topic)) continue;
      const key = topicKey(entry.stream_id, entry.topic);
      topics.set(key, (topics.get(key) || 0) + 1);
      streams.set(entry.stream_id, (streams.get(entry.stream_id) || 0) + 1);
    } else {
      dms.set(entry.key, (dms.get(entry.key) || 0) + 1);
    }
    total += 1;
  }
  return { streams, topics, dms, total };
}

/** Direct messages and mentions: what asks for the person's attention. */
export function attentionCount() {
  let n = 0;
  for (const [id, entry] of state.unread) if (entry.kind === 'dm' || state.mentions.has(id)) n += 1;
  return n;
}

/** The count the title and the icon show, as the `desktop_icon_count_display` setting
 * says: 1 every unread message, 2 direct messages and mentions, 3 none. */
export function titleCount() {
  const mode = state.settings.desktop_icon_count_display || 1;
  if (mode === 3) return 0;
  return mode === 2 ? attentionCount() : unreadCounts().total;
}

/** Whether an unread entry (a message not loaded) is in a narrow of channels, topics and
 * conversations; other operators cannot be told from the entry and do not match. */
export function entryMatches(entry, ops) {
  for (const o of ops) {
    let ok;
    if (o.operator === 'channel') ok = entry.kind === 'stream' && entry.stream_id === o.operand;
    else if (o.operator === 'topic') ok = entry.kind === 'stream' && entry.topic.toLowerCase() === String(o.operand).toLowerCase();
    else if (o.operator === 'dm') ok = entry.kind === 'dm' && entry.key === dmKey(o.operand);
    else if (o.operator === 'is' && o.operand === 'dm') ok = entry.kind === 'dm';
    else return false;
    if (ok === !!o.negated) return false;
  }
  return true;
}

const KNOWN = new Set(['channel', 'topic', 'dm']);

/** The first unread message of a narrow as the registration's unread state tells, for
 * narrows of channels, topics and conversations (undefined for others, which only the
 * server can tell; null when nothing is unread). Lets a narrow open by a message id, one
 * query, instead of asking the server to find its first unread. */
export function firstUnreadIn(ops) {
  if (!state.registered || !ops.length || !ops.every((o) => KNOWN.has(o.operator) || (o.operator === 'is' && o.operand === 'dm'))) return undefined;
  let first = null;
  for (const [id, entry] of state.unread) if ((first === null || id < first) && entryMatches(entry, ops)) first = id;
  return first;
}

/** The first unread message among a narrow's loaded ids (ascending), or null. */
export function firstUnread(ids) {
  for (const id of ids) if (state.unread.has(id)) return id;
  return null;
}

/** How many of `ids` after `afterId` are unread. */
export function unreadAfter(ids, afterId) {
  let n = 0;
  for (let i = ids.length - 1; i >= 0 && ids[i] > afterId; i -= 1) if (state.unread.has(ids[i])) n += 1;
  return n;
}

/** The sidebar's notion of the open conversation: channel and topic of a narrow, negated
 * operators and searches naming none. */
export function openConversation(route) {
  if (!route || route.view !== 'narrow' || route.query !== undefined) return {};
  return { channel: channelOf(route.ops), topic: topicOf(route.ops) };
}
