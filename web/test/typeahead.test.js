import { test } from 'node:test';
import assert from 'node:assert/strict';
import { candidates, complete, findToken } from '../src/typeahead.js';
import { fresh, OTHER, THIRD } from './fixtures.js';

const at = (text) => findToken(text, text.length);

test('the token at the caret: mentions, channels, topics, emoji', () => {
  assert.deepEqual(at('hi @oli'), { kind: 'mention', silent: false, query: 'oli', start: 3 });
  assert.deepEqual(at('@_Oli'), { kind: 'mention', silent: true, query: 'Oli', start: 0 });
  assert.equal(at('mail me@example.com'), null);
  assert.deepEqual(at('see #gen'), { kind: 'channel', query: 'gen', start: 4 });
  assert.deepEqual(at('see #**general>lun'), { kind: 'topic', channel: 'general', query: 'lun', start: 4 });
  assert.deepEqual(at('see #**general** >'), { kind: 'topic', channel: 'general', query: '', start: 4 });
  assert.deepEqual(at('see #**general** >lun'), { kind: 'topic', channel: 'general', query: 'lun', start: 4 });
  assert.deepEqual(at('nice :thu'), { kind: 'emoji', query: 'thu', start: 5 });
  assert.equal(at('at 10:30'), null);
  assert.equal(at('# Heading'), null);
  assert.equal(at('@**Olivia Owner** '), null);   // a finished mention is left alone
});

test('people, groups and wildcards are offered as the server spells mentions', () => {
  fresh();
  const found = candidates(at('@oli'), { inChannel: true });
  assert.deepEqual(found.map((c) => c.insert), ['@**Oliver Other** ', '@**Olivia Owner** ']);
  assert.equal(found[0].detail, 'oliver@example.com');   // the delivery email when shown
  assert.equal(candidates(at('@_oliv'))[0].insert, '@_**Oliver Other** ');
  assert.deepEqual(candidates(at('@back')).map((c) => c.insert), ['@*backend* ']);
  assert.deepEqual(candidates(at('@al'), { inChannel: true }).map((c) => c.insert), ['@**all** ']);
  assert.deepEqual(candidates(at('@al'), { inChannel: false }), []);
  assert.deepEqual(candidates(at('@example')), []);   // not inside an address
});

test('two people of one name are told apart by id', (t) => {
  const s = fresh();
  s.users.set(13, { user_id: 13, full_name: 'Olivia Owner', email: 'o2@example.com', is_active: true });
  const inserts = candidates(at('@olivia')).map((c) => c.insert);
  assert.ok(inserts.includes(`@**Olivia Owner|${OTHER}** `) && inserts.includes('@**Olivia Owner|13** '));
  assert.ok(!inserts.some((i) => i.includes(`|${THIRD}`)));
});

test('channels the person may see, then their topics, then emoji', () => {
  fresh();
  assert.deepEqual(candidates(at('#')).map((c) => c.label), ['#design', '#general']);   // not the private one
  const topics = candidates(at('#**general>lu'), { topicsOf: () => ['lunch', 'deploys'] });
  assert.deepEqual(topics.map((c) => c.insert), ['#**general>lunch** ', '#**general>lu** ']);
  const emoji = [{ name: 'thumbs_up', char: '👍' }, { name: 'thinking_face', char: '🤔' }, { name: 'fire', char: '🔥' }];
  assert.deepEqual(candidates(at(':th'), { emoji }).map((c) => c.insert), [':thinking_face: ', ':thumbs_up: ']);
});

test('a choice replaces its token and leaves the caret after it', () => {
  fresh();
  const text = 'hi @oli and more';
  const token = findToken(text, 7);
  const choice = candidates(token)[1];
  assert.deepEqual(complete(text, 7, token, choice), { text: 'hi @**Olivia Owner** and more', caret: 21 });
});
