// Compose autocomplete, without the DOM: which token the caret is in (`@` people and
// groups, `#` channels then `>` topics, `:` emoji), what matches it, and the Markdown a
// choice puts in its place (the syntax the server renders as mentions and emoji).
import { mentionableGroups } from './groups.js';
import { state } from './store.js';

const MAX = 8;
const WILDCARDS = [
  { name: 'all', what: 'Notify everyone in the conversation' },
  { name: 'everyone', what: 'Notify everyone in the conversation' },
  { name: 'channel', what: 'Notify everyone in the channel' },
  { name: 'topic', what: 'Notify everyone in the topic' },
];

/**
 * The autocompletable token ending at the caret, or null:
 * {kind: 'mention'|'channel'|'topic'|'emoji', query, start, silent?, channel?}
 * (`start`: where the token begins, its trigger character included).
 */
export function findToken(text, caret) {
  const before = text.slice(0, caret);
  const line = before.slice(before.lastIndexOf('\n') + 1);
  let m = /(?:^|[\s(])#\*\*([^*>\n]+)>([^*\n]{0,60})$/.exec(line);
  if (m) return { kind: 'topic', channel: m[1], query: m[2], start: caret - m[0].replace(/^[\s(]/, '').length };
  m = /(?:^|[\s(])#\*\*([^*>\n]+)\*\* ?>([^*\n]{0,60})$/.exec(line);
  if (m) return { kind: 'topic', channel: m[1], query: m[2], start: caret - m[0].replace(/^[\s(]/, '').length };
  m = /(?:^|[\s(])#(?:\*\*)?([^\s*#>][^*#>\n]{0,40}|)$/.exec(line);
  if (m && !/\s{2}|\s$/.test(m[1])) return { kind: 'channel', query: m[1], start: caret - m[0].replace(/^[\s(]/, '').length };
  m = /(?:^|[\s(])@(_?)(?:\*\*?)?([^*@\n]{0,40})$/.exec(line);
  if (m && !/\s{2}|^\s/.test(m[2])) return { kind: 'mention', silent: m[1] === '_', query: m[2], start: caret - m[0].replace(/^[\s(]/, '').length };
  m = /(?:^|[\s(]):([a-z0-9_+-]{2,40})$/i.exec(line);
  if (m) return { kind: 'emoji', query: m[1].toLowerCase(), start: caret - m[1].length - 1 };
  return null;
}

/** How well `name` matches `query`: 0 the start, 1 a word's start, 2 inside; -1 no match. */
export function rank(name, query) {
  const n = name.toLowerCase();
  const q = query.toLowerCase().trim();
  if (!q) return 0;
  if (n.startsWith(q)) return 0;
  if (n.split(/[\s_\-.>]+/).some((word) => word.startsWith(q))) return 1;
  return n.includes(q) ? 2 : -1;
}

function best(items, query, nameOf) {
  return items.map((item) => ({ item, r: rank(nameOf(item), query) }))
    .filter((x) => x.r >= 0)
    .sort((a, b) => a.r - b.r || nameOf(a.item).localeCompare(nameOf(b.item)))
    .map((x) => x.item);
}

/** The candidates for a token: [{key, label, detail, insert}] (insert: the Markdown). */
export function candidates(token, { inChannel = false, topicsOf = () => [], emoji = [] } = {}) {
  if (!token) return [];
  if (token.kind === 'mention') return mentionCandidates(token, inChannel);
  if (token.kind === 'channel') {
    const channels = best([...state.streams.values()].filter((s) => state.subs.has(s.stream_id) || !s.invite_only), token.query, (s) => s.name);
    return channels.slice(0, MAX).map((s) => ({ key: `c${s.stream_id}`, label: `#${s.name}`, detail: s.description || '', insert: `#**${s.name}** ` }));
  }
  if (token.kind === 'topic') {
    const stream = [...state.streams.values()].find((s) => s.name.toLowerCase() === token.channel.toLowerCase());
    if (!stream) return [];
    const names = best(topicsOf(stream.stream_id), token.query, (t) => t);
    const out = names.slice(0, MAX).map((t) => ({ key: `t${t}`, label: t, detail: `#${stream.name}`, insert: `#**${stream.name}>${t}** ` }));
    if (token.query.trim() && !names.some((t) => t.toLowerCase() === token.query.trim().toLowerCase())) {
      out.push({ key: 'new-topic', label: token.query.trim(), detail: `New topic in #${stream.name}`, insert: `#**${stream.name}>${token.query.trim()}** ` });
    }
    return out;
  }
  if (token.kind === 'emoji') {
    const found = best(emoji, token.query, (e) => e.name);
    return found.slice(0, MAX).map((e) => ({ key: `e${e.name}`, label: `:${e.name}:`, detail: e.char, insert: `:${e.name}: ` }));
  }
  return [];
}

function mentionCandidates(token, inChannel) {
  const q = token.query;
  const people = [...state.users.values()].filter((u) => u.is_active !== false && u.user_id !== state.me);
  const names = new Map();
  for (const u of state.users.values()) names.set(u.full_name.toLowerCase(), (names.get(u.full_name.toLowerCase()) || 0) + 1);
  const prefix = token.silent ? '@_' : '@';
  // By name (any word's start, or inside), or by the start of the email shown.
  const found = best(people, q, (u) => u.full_name)
    .concat(people.filter((u) => rank(u.full_name, q) < 0 && (u.delivery_email || u.email).toLowerCase().startsWith(q.toLowerCase())));
  const out = [];
  if (!token.silent && inChannel) {
    for (const w of WILDCARDS) if (rank(w.name, q) === 0 && q) out.push({ key: `w${w.name}`, label: `@${w.name}`, detail: w.what, insert: `@**${w.name}** ` });
  }
  for (const u of found.slice(0, MAX)) {
    const unique = names.get(u.full_name.toLowerCase()) === 1;
    out.push({ key: `u${u.user_id}`, label: u.full_name, detail: u.is_bot ? 'Bot' : (u.delivery_email || u.email), user: u.user_id,
      insert: `${prefix}**${u.full_name}${unique ? '' : `|${u.user_id}`}** ` });
  }
  for (const g of best(mentionableGroups(), q, (x) => x.name).slice(0, 3)) {
    out.push({ key: `g${g.id}`, label: g.name, detail: g.description || 'Group', insert: `${prefix}*${g.name}* ` });
  }
  return out.slice(0, MAX);
}

/** The text after choosing a candidate: {text, caret}. */
export function complete(text, caret, token, choice) {
  const head = text.slice(0, token.start);
  const tail = text.slice(caret).replace(/^\s+/, '');
  const next = head + choice.insert + tail;
  return { text: next, caret: head.length + choice.insert.length };
}
