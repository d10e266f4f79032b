import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attentionCount, entryMatches, firstUnread, firstUnreadIn, openConversation, titleCount, unreadAfter, unreadCounts } from '../src/unread.js';
import { parseHash } from '../src/narrow.js';
import { fresh, GENERAL, OTHER, SECRET } from './fixtures.js';

function withUnread() {
  return fresh({
    unread_msgs: {
      streams: [{ stream_id: GENERAL, topic: 'lunch', unread_message_ids: [1, 2] }, { stream_id: GENERAL, topic: 'muted one', unread_message_ids: [3] },
        { stream_id: SECRET, topic: 'x', unread_message_ids: [4] }],
      pms: [{ other_user_id: OTHER, unread_message_ids: [5] }], huddles: [], mentions: [2],
    },
    user_topics: [{ stream_id: GENERAL, topic_name: 'Muted One', visibility_policy: 1 }],
  });
}

test('counts leave out muted topics and channels one is not in', () => {
  withUnread();
  const counts = unreadCounts();
  assert.equal(counts.total, 3);
  assert.equal(counts.streams.get(GENERAL), 2);
  assert.equal(counts.topics.get(`${GENERAL}:lunch`), 2);
  assert.equal(counts.dms.get(String(OTHER)), 1);
  assert.equal(attentionCount(), 2);   // the direct message and the mention
});

test('the title count follows the desktop_icon_count_display setting', (t) => {
  const s = withUnread();
  assert.equal(titleCount(), 3);
  s.settings = { ...s.settings, desktop_icon_count_display: 2 };
  assert.equal(titleCount(), 2);
  s.settings = { ...s.settings, desktop_icon_count_display: 3 };
  assert.equal(titleCount(), 0);
});

test('unread entries match narrows by channel, topic and conversation', () => {
  const s = withUnread();
  const entry = s.unread.get(1);
  assert.ok(entryMatches(entry, [{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'LUNCH' }]));
  assert.ok(!entryMatches(entry, [{ operator: 'channel', operand: GENERAL, negated: true }]));
  assert.ok(entryMatches(s.unread.get(5), [{ operator: 'dm', operand: [OTHER] }]));
  assert.ok(!entryMatches(entry, [{ operator: 'search', operand: 'x' }]));
});

test('a narrow opens at its first unread message; what is unread below is counted', () => {
  withUnread();
  assert.equal(firstUnread([0, 1, 2, 9]), 1);
  assert.equal(firstUnread([7, 8]), null);
  assert.equal(unreadAfter([0, 1, 2, 3], 1), 2);
});

test('a search or a negated channel opens no conversation in the sidebar', () => {
  fresh();
  assert.deepEqual(openConversation(parseHash('#narrow/search-query/-channel%3Ageneral%20word')), {});
  assert.deepEqual(openConversation(parseHash('#narrow/channel/1-general/topic/a')), { channel: 1, topic: 'a' });
});

test('the unread state tells where a narrow of channels, topics or conversations opens', () => {
  withUnread();
  assert.equal(firstUnreadIn([{ operator: 'channel', operand: GENERAL }]), 1);
  assert.equal(firstUnreadIn([{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'Muted one' }]), 3);
  assert.equal(firstUnreadIn([{ operator: 'dm', operand: [OTHER] }]), 5);
  assert.equal(firstUnreadIn([{ operator: 'channel', operand: 99 }]), null);   // nothing unread: the newest
  assert.equal(firstUnreadIn([{ operator: 'is', operand: 'starred' }]), undefined);   // only the server knows
  assert.equal(firstUnreadIn([{ operator: 'search', operand: 'x' }, { operator: 'channel', operand: GENERAL }]), undefined);
});
