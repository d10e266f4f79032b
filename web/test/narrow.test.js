import { test } from 'node:test';
import assert from 'node:assert/strict';
import { channelHash, channelOf, encodeHashComponent, matches, narrowKey, opsOfKey, parseHash, parseQuery, searchHash, suggest, topicOf, describe } from '../src/narrow.js';
import { fresh, GENERAL, ME, OTHER, streamMessage, directMessage } from './fixtures.js';

test('a key decodes to the operators it was made of', () => {
  fresh();
  const ops = [{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'lunch' }, { operator: 'search', operand: 'x', negated: true }];
  assert.deepEqual(opsOfKey(narrowKey(ops)), ops);
  assert.deepEqual(opsOfKey('q:channel:general pizza'), parseQuery('channel:general pizza'));
});

test('hashes name views and narrows', () => {
  fresh();
  assert.equal(parseHash('#settings').view, 'settings');
  assert.equal(parseHash('#channels').view, 'channels');
  assert.equal(parseHash('').view, 'inbox');
  const topic = parseHash('#narrow/channel/1-general/topic/lunch%20plans');
  assert.deepEqual(topic.ops, [{ operator: 'channel', operand: 1 }, { operator: 'topic', operand: 'lunch plans' }]);
  assert.deepEqual(parseHash('#narrow/dm/11,12').ops, [{ operator: 'dm', operand: [11, 12] }]);
  assert.deepEqual(parseHash('#narrow/sender/11').ops, [{ operator: 'sender', operand: 11 }]);
  assert.equal(parseHash('#narrow/channel/%E0%A4%A').view, 'narrow');   // a broken escape is no crash
  assert.equal(parseHash('#narrow/search-query/hello').key, 'q:hello');
});

test('the server\'s channel, topic and message links name the views they open', () => {
  fresh();
  // The reference's encoding: "." escapes, "%" written "."; spaces in a channel slug as dashes
  assert.equal(encodeHashComponent('v1.2 plans (draft) 100%'), 'v1.2E2.20plans.20.28draft.29.20100.25');
  const topic = parseHash('#narrow/channel/7-design-team/topic/v1.2E2.20plans/with/42');
  assert.deepEqual(topic.ops, [{ operator: 'channel', operand: 7 }, { operator: 'topic', operand: 'v1.2 plans' }]);
  // /with/ and /near/ say where to look: the view is the topic's own
  assert.equal(topic.key, parseHash('#narrow/channel/7-design-team/topic/v1.2E2.20plans').key);
  assert.equal(parseHash('#narrow/channel/7-x/topic/caf.C3.A9.20.40.20noon/near/9').ops[1].operand, 'café @ noon');
  assert.deepEqual(parseHash('#narrow/channel/11-.E6.97.A5.E6.9C.AC').ops, [{ operator: 'channel', operand: 11 }]);
  assert.deepEqual(parseHash('#narrow/stream/3-general').ops, [{ operator: 'channel', operand: 3 }]);   // the older name
  // The client's own addresses are written the same way and read back
  const made = channelHash(GENERAL, 'v1.2 / 50% (ok)');
  assert.deepEqual(parseHash(made).ops, [{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'v1.2 / 50% (ok)' }]);
  assert.equal(parseHash(searchHash('v1.2 plans')).query, 'v1.2 plans');
});

test('a negated channel is not the channel a narrow is in', () => {
  fresh();
  const ops = parseQuery('-channel:general word');
  assert.equal(channelOf(ops), undefined);
  assert.equal(channelOf(parseQuery('channel:general word')), GENERAL);
  assert.equal(topicOf([{ operator: 'topic', operand: 'x' }]), undefined);   // a topic needs its channel
  assert.equal(topicOf([{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'x' }]), 'x');
});

test('live messages join the narrows they match', () => {
  fresh();
  const m = streamMessage({ subject: 'Lunch' });
  assert.ok(matches([{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: 'lunch' }], m));
  assert.ok(!matches([{ operator: 'channel', operand: GENERAL, negated: true }], m));
  assert.ok(matches([{ operator: 'dm', operand: [OTHER] }], directMessage()));
  assert.ok(!matches([{ operator: 'dm', operand: [OTHER, ME] }], streamMessage()));
  assert.ok(matches([{ operator: 'sender', operand: OTHER }], m));
  assert.ok(matches([{ operator: 'is', operand: 'starred' }], { ...m, flags: ['starred'] }));
  assert.ok(!matches([{ operator: 'search', operand: 'hi' }], m));   // searches are not kept live
});

test('the narrow language resolves names and suggests operators', () => {
  fresh();
  assert.deepEqual(parseQuery('sender:me dm:olivia@example.com "two words"'), [
    { operator: 'sender', operand: ME }, { operator: 'dm', operand: [OTHER] }, { operator: 'search', operand: 'two words' }]);
  assert.ok(suggest('chan', () => []).some((s) => s.text === 'channel:'));
  assert.ok(suggest('channel:gen', () => []).some((s) => s.text === 'channel:general '));
  assert.equal(describe([{ operator: 'channel', operand: GENERAL }, { operator: 'topic', operand: '' }]), '#general › general chat');
});
