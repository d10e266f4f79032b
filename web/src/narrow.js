// Narrows: the address (hash) of each view, the API's narrow for it, whether a live
// message belongs in it, and the search box's narrow language.
import { state, dmKey, messageDmKey, userName } from './store.js';

const VIEWS = ['settings', 'channels'];

// Message ids in an address that say where in a conversation to look, not which one it is
// (a topic link's /with/ its latest message, a message link's /near/ it): the view opens
// the conversation.
const PLACES = ['with', 'near'];

/** The view the hash names: {view: 'inbox'|'settings'|'channels'|'narrow', ops, key}. */
export function parseHash(hash) {
  const parts = hash.replace(/^#/, '').split('/').map(safeDecode);
  if (VIEWS.includes(parts[0])) return { view: parts[0] };
  if (parts[0] !== 'narrow') return { view: 'inbox' };
  const ops = [];
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const [operator, operand] = [parts[i], parts[i + 1]];
    if (PLACES.includes(operator)) continue;
    if (operator === 'channel' || operator === 'stream') ops.push({ operator: 'channel', operand: Number(operand.split('-')[0]) });
    else if (operator === 'dm') ops.push({ operator, operand: operand.split(',').map(Number) });
    else if (operator === 'sender') ops.push({ operator, operand: Number(operand) || operand });
    else if (operator === 'search-query') return { view: 'narrow', ops: parseQuery(operand), query: operand, key: 'q:' + operand };
    else ops.push({ operator, operand });
  }
  return { view: 'narrow', ops, key: narrowKey(ops) };
}

// Names in addresses are encoded as the reference encodes them (its encodeHashComponent,
// which the server's channel and topic links use): URI encoding with "%" written "." and
// ".", "(", ")" escaped, so "v1.2 plans" is "v1.2E2.20plans".
const HASH_ESCAPES = { '%': '.', '(': '.28', ')': '.29', '.': '.2E' };

export function encodeHashComponent(text) {
  return encodeURIComponent(text).replace(/[%().]/g, (c) => HASH_ESCAPES[c]);
}

function safeDecode(part) {
  try { return decodeURIComponent(part.replace(/\./g, '%')); } catch { /* not dot-encoded */ }
  try { return decodeURIComponent(part); } catch { return part; }
}

/** A narrow's key: one string per narrow, the key of its state (state.narrows). Search
 * narrows ('q:' keys) keep the words typed; the others encode their operators. */
export function narrowKey(ops) {
  return JSON.stringify(ops.map((o) => [o.operator, o.operand, !!o.negated]));
}

/** The operators a key stands for (the inverse of narrowKey; a search key's query parsed). */
export function opsOfKey(key) {
  if (key.startsWith('q:')) return parseQuery(key.slice(2));
  return JSON.parse(key).map(([operator, operand, negated]) => (negated ? { operator, operand, negated: true } : { operator, operand }));
}

export function isSearchKey(key) {
  return key.startsWith('q:');
}

/** The channel a (non-search) narrow is in: its positive `channel` operand, else undefined. */
export function channelOf(ops) {
  const op = ops && ops.find((o) => o.operator === 'channel' && !o.negated && typeof o.operand === 'number');
  return op ? op.operand : undefined;
}

/** The topic a narrow is in (with its channel), else undefined. */
export function topicOf(ops) {
  const op = ops && channelOf(ops) !== undefined ? ops.find((o) => o.operator === 'topic' && !o.negated) : undefined;
  return op ? String(op.operand) : undefined;
}

export function channelHash(streamId, topic) {
  const stream = state.streams.get(streamId);
  const slug = `${streamId}-${encodeHashComponent(((stream && stream.name) || '').replace(/ /g, '-'))}`;
  return `#narrow/channel/${slug}` + (topic !== undefined ? `/topic/${encodeHashComponent(topic)}` : '');
}

export function dmHash(key) {
  return `#narrow/dm/${key}`;
}

export function senderHash(userId) {
  return `#narrow/sender/${userId}`;
}

export const STARRED_HASH = '#narrow/is/starred';

export function searchHash(query) {
  return `#narrow/search-query/${encodeHashComponent(query)}`;
}

/** The API's narrow: ids as the API takes them. */
export function apiNarrow(ops) {
  return ops.map((o) => ({ operator: o.operator, operand: o.operand, ...(o.negated ? { negated: true } : {}) }));
}

export function describe(ops, query) {
  if (query !== undefined) return `Search: ${query}`;
  const channel = channelOf(ops);
  const topic = topicOf(ops);
  const dm = ops.find((o) => o.operator === 'dm');
  const sender = ops.find((o) => o.operator === 'sender');
  if (channel !== undefined) {
    const stream = state.streams.get(channel);
    return `#${stream ? stream.name : 'unknown channel'}` + (topic !== undefined ? ` › ${topic || state.realm.realm_empty_topic_display_name || 'general chat'}` : '');
  }
  if (dm) return `Direct messages with ${dm.operand.map(userName).join(', ')}`;
  if (ops.length === 1 && ops[0].operator === 'is' && ops[0].operand === 'starred') return 'Starred messages';
  if (sender && typeof sender.operand === 'number') return `Messages sent by ${userName(sender.operand)}`;
  return 'Messages';
}

/** Does a new message belong in this narrow? (Search narrows are not kept live.) */
export function matches(ops, message) {
  for (const o of ops) {
    let ok;
    if (o.operator === 'channel') ok = message.type === 'stream' && message.stream_id === o.operand;
    else if (o.operator === 'topic') ok = message.type === 'stream' && message.subject.toLowerCase() === String(o.operand).toLowerCase();
    else if (o.operator === 'dm') ok = message.type === 'private' && messageDmKey(message) === dmKey(o.operand);
    else if (o.operator === 'is' && o.operand === 'dm') ok = message.type === 'private';
    else if (o.operator === 'is' && o.operand === 'starred') ok = (message.flags || []).includes('starred');
    else if (o.operator === 'sender' && typeof o.operand === 'number') ok = message.sender_id === o.operand;
    else return false;
    if (ok === !!o.negated) return false;
  }
  return true;
}

// ---- the narrow language: `channel:general topic:"deploy plans" sender:me has:link text`

export const OPERATORS = ['channel', 'topic', 'sender', 'dm', 'has', 'is', 'search'];
export const HAS = ['link', 'image', 'attachment', 'reaction'];
export const IS = ['unread', 'starred', 'mentioned', 'dm', 'resolved', 'followed'];

export function tokenize(text) {
  const tokens = [];
  const pattern = /(-?)([a-z-]+):("([^"]*)"?|\S*)|"([^"]*)"?|(\S+)/g;
  let match;
  while ((match = pattern.exec(text))) {
    if (match[2] && OPERATORS.includes(match[2])) {
      tokens.push({ negated: match[1] === '-', operator: match[2], operand: match[4] ?? match[3] });
    } else {
      tokens.push({ operator: 'search', operand: match[5] ?? match[0] });
    }
  }
  return tokens;
}

export function parseQuery(text) {
  const ops = [];
  const words = [];
  for (const t of tokenize(text)) {
    if (t.operator === 'search') { words.push(t.operand); continue; }
    if (!t.operand) continue;
    const op = { operator: t.operator, operand: resolveOperand(t.operator, t.operand) };
    if (t.negated) op.negated = true;
    ops.push(op);
  }
  if (words.length) ops.push({ operator: 'search', operand: words.join(' ') });
  return ops;
}

function resolveOperand(operator, operand) {
  if (operator === 'channel') {
    const stream = [...state.streams.values()].find((s) => s.name.toLowerCase() === operand.toLowerCase());
    return stream ? stream.stream_id : operand;
  }
  if (operator === 'sender' && operand === 'me') return state.me;
  if (operator === 'dm') {
    return operand.split(',').map((part) => {
      const user = findUser(part.trim());
      return user ? user.user_id : part.trim();
    });
  }
  if (operator === 'sender') {
    const user = findUser(operand);
    return user ? user.user_id : operand;
  }
  return operand;
}

function findUser(text) {
  const lower = text.toLowerCase();
  return [...state.users.values()].find((u) => u.email.toLowerCase() === lower || u.full_name.toLowerCase() === lower);
}

const quote = (value) => (/\s/.test(value) ? `"${value}"` : value);

/** Suggestions for the last word being typed: [{text (the whole new query), label}]. */
export function suggest(text, topicsOf) {
  const cut = text.search(/\S*$/);
  const head = text.slice(0, cut);
  const word = text.slice(cut);
  const out = [];
  const add = (value, label) => out.push({ text: head + value + (value.endsWith(':') ? '' : ' '), label });
  const colon = word.indexOf(':');
  if (colon > 0) {
    const operator = word.slice(0, colon).replace(/^-/, '');
    const partial = word.slice(colon + 1).replace(/^"/, '').toLowerCase();
    const prefix = word.slice(0, colon + 1);
    if (operator === 'channel') {
      for (const s of state.subs.values()) if (s.name.toLowerCase().includes(partial)) add(prefix + quote(s.name), `Channel #${s.name}`);
    } else if (operator === 'sender' || operator === 'dm') {
      for (const u of state.users.values()) {
        if (u.full_name.toLowerCase().includes(partial) || u.email.toLowerCase().includes(partial)) add(prefix + u.email, `${operator === 'dm' ? 'Direct messages with' : 'Sent by'} ${u.full_name}`);
      }
    } else if (operator === 'topic') {
      const channelToken = tokenize(head).find((t) => t.operator === 'channel');
      for (const t of topicsOf(channelToken && channelToken.operand)) if (t.toLowerCase().includes(partial)) add(prefix + quote(t), `Topic ${t}`);
    } else if (operator === 'has') {
      for (const h of HAS) if (h.startsWith(partial)) add(prefix + h, `Messages with a ${h}`);
    } else if (operator === 'is') {
      for (const i of IS) if (i.startsWith(partial)) add(prefix + i, `Messages that are ${i}`);
    }
  } else {
    for (const o of OPERATORS) if (o !== 'search' && word && o.startsWith(word.toLowerCase())) add(o + ':', `${o}: …`);
    if (word) out.push({ text: text, label: `Search for “${text.trim()}”` });
  }
  return out.slice(0, 8);
}
