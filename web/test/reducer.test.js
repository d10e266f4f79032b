import { test } from 'node:test';
import assert from 'node:assert/strict';
import { narrowState } from '../src/store.js';
import { narrowKey } from '../src/narrow.js';
import { applyEvents, STARRED_KEY, typersIn } from '../src/reducer.js';
import { rememberMessages } from '../src/store.js';
import { unreadCounts } from '../src/unread.js';
import { fresh, GENERAL, ME, OTHER, streamMessage, directMessage } from './fixtures.js';

const generalKey = narrowKey([{ operator: 'channel', operand: GENERAL }]);
const lunchKey = narrowKey([{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'lunch' }]);

function loaded(key, ids = [], { foundNewest = true } = {}) {
  const view = narrowState(key);
  Object.assign(view, { ids, loaded: true, foundNewest, foundOldest: true });
  return view;
}

test('a new message joins the live narrows it matches, unread, and is reported', () => {
  const s = fresh();
  const general = loaded(generalKey);
  const behind = loaded(lunchKey, [], { foundNewest: false });   // not at the present: fetched later
  const m = streamMessage();
  const arrived = applyEvents([{ type: 'message', message: m, flags: ['mentioned'] }]);
  assert.deepEqual(arrived.map((x) => x.id), [m.id]);
  assert.deepEqual(general.ids, [m.id]);
  assert.deepEqual(behind.ids, []);
  assert.ok(s.unread.has(m.id) && s.mentions.has(m.id));
  assert.equal(unreadCounts().streams.get(GENERAL), 1);
});

test('a message of one’s own arrives read; a direct message updates the recent conversations', () => {
  const s = fresh();
  const mine = directMessage({ sender_id: ME });
  applyEvents([{ type: 'message', message: mine, flags: ['read'] }]);
  assert.ok(!s.unread.has(mine.id));
  assert.equal(s.recentDms.get(String(OTHER)), mine.id);
});

test('read state from elsewhere: marked read, and unread again with its details', () => {
  const s = fresh();
  const m = streamMessage();
  applyEvents([{ type: 'message', message: m, flags: [] }]);
  applyEvents([{ type: 'update_message_flags', op: 'add', flag: 'read', messages: [m.id] }]);
  assert.ok(!s.unread.has(m.id));
  assert.ok(s.messages.get(m.id).flags.includes('read'));
  applyEvents([{ type: 'update_message_flags', op: 'remove', flag: 'read', messages: [m.id],
    message_details: { [m.id]: { type: 'stream', stream_id: GENERAL, topic: 'lunch', mentioned: true } } }]);
  assert.deepEqual(s.unread.get(m.id), { kind: 'stream', stream_id: GENERAL, topic: 'lunch' });
  assert.ok(s.mentions.has(m.id));
});

test('a topic moved leaves the narrows it no longer matches and joins the ones it does', () => {
  const s = fresh();
  const m = streamMessage({ subject: 'lunch' });
  rememberMessages([m]);
  s.unread.set(m.id, { kind: 'stream', stream_id: GENERAL, topic: 'lunch' });
  const lunch = loaded(lunchKey, [m.id]);
  const dinnerKey = narrowKey([{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'dinner' }]);
  const dinner = loaded(dinnerKey, []);
  applyEvents([{ type: 'update_message', message_id: m.id, message_ids: [m.id], stream_id: GENERAL, subject: 'dinner', propagate_mode: 'change_all' }]);
  assert.deepEqual(lunch.ids, []);
  assert.deepEqual(dinner.ids, [m.id]);
  assert.equal(s.messages.get(m.id).subject, 'dinner');
  assert.equal(s.unread.get(m.id).topic, 'dinner');
});

test('edits, reactions and deletions change the message everywhere', () => {
  const s = fresh();
  const m = streamMessage();
  const general = loaded(generalKey, []);
  applyEvents([{ type: 'message', message: m, flags: [] }]);
  applyEvents([{ type: 'update_message', message_id: m.id, rendered_content: '<p>edited</p>', edit_timestamp: 5 }]);
  assert.equal(s.messages.get(m.id).content, '<p>edited</p>');
  applyEvents([{ type: 'reaction', op: 'add', message_id: m.id, user_id: ME, emoji_name: 'fire', emoji_code: '1f525', reaction_type: 'unicode_emoji' }]);
  assert.equal(s.messages.get(m.id).reactions.length, 1);
  applyEvents([{ type: 'reaction', op: 'remove', message_id: m.id, user_id: ME, emoji_name: 'fire', emoji_code: '1f525', reaction_type: 'unicode_emoji' }]);
  assert.equal(s.messages.get(m.id).reactions.length, 0);
  applyEvents([{ type: 'delete_message', message_ids: [m.id] }]);
  assert.ok(!s.messages.has(m.id) && !s.unread.has(m.id));
  assert.deepEqual(general.ids, []);
});

test('starring keeps the starred set and the starred narrow current', () => {
  const s = fresh({ starred_messages: [5] });
  const m = streamMessage();
  rememberMessages([m]);
  const starred = loaded(STARRED_KEY, []);
  applyEvents([{ type: 'update_message_flags', op: 'add', flag: 'starred', messages: [m.id] }]);
  assert.ok(s.starred.has(m.id) && s.starred.has(5));
  assert.deepEqual(starred.ids, [m.id]);
  assert.ok(s.messages.get(m.id).flags.includes('starred'));
  applyEvents([{ type: 'update_message_flags', op: 'remove', flag: 'starred', messages: [m.id] }]);
  assert.ok(!s.starred.has(m.id));
  assert.deepEqual(starred.ids, []);
});

test('subscriptions, channels, people, groups and settings follow their events', () => {
  const s = fresh();
  applyEvents([{ type: 'subscription', op: 'add', subscriptions: [{ stream_id: 3, name: 'design' }] }]);
  assert.ok(s.subs.has(3));
  applyEvents([{ type: 'subscription', op: 'remove', subscriptions: [{ stream_id: 3 }] }]);
  assert.ok(!s.subs.has(3) && s.streams.has(3));
  applyEvents([{ type: 'stream', op: 'create', streams: [{ stream_id: 9, name: 'new' }] }]);
  assert.equal(s.streams.get(9).name, 'new');
  applyEvents([{ type: 'realm_user', op: 'update', person: { user_id: OTHER, full_name: 'Olivia O.' } }]);
  assert.equal(s.users.get(OTHER).full_name, 'Olivia O.');
  applyEvents([{ type: 'user_group', op: 'add_members', group_id: 3, user_ids: [ME] }]);
  assert.ok(s.groups.get(3).members.includes(ME));
  applyEvents([{ type: 'user_settings', op: 'update', property: 'color_scheme', value: 2 }]);
  assert.equal(s.settings.color_scheme, 2);
  applyEvents([{ type: 'realm', op: 'update_dict', property: 'default', data: { can_resolve_topics_group: 1 } }]);
  assert.equal(s.realm.realm_can_resolve_topics_group, 1);
});

test('typing starts and stops per conversation; a message ends it', () => {
  fresh();
  const typing = { type: 'typing', op: 'start', message_type: 'stream', stream_id: GENERAL, topic: 'Lunch', sender: { user_id: OTHER } };
  applyEvents([typing]);
  assert.deepEqual(typersIn(`s:${GENERAL}:lunch`), [OTHER]);
  applyEvents([{ type: 'message', message: streamMessage({ subject: 'lunch' }), flags: [] }]);
  assert.deepEqual(typersIn(`s:${GENERAL}:lunch`), []);
});

test('a person whose address is hidden or shown again is known by the new API address', () => {
  const s = fresh();
  s.users.set(OTHER, { user_id: OTHER, email: 'otto@example.com', full_name: 'Otto' });
  applyEvents([{ type: 'realm_user', op: 'update',
    person: { user_id: OTHER, new_email: `user${OTHER}@demo.example.com` } }]);
  assert.equal(s.users.get(OTHER).email, `user${OTHER}@demo.example.com`);
  assert.ok(!('new_email' in s.users.get(OTHER)));
  assert.equal(s.users.get(OTHER).full_name, 'Otto');
});
