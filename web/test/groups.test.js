import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inGroup, may, mentionableGroups, settingAllows } from '../src/groups.js';
import { fresh, ME, OTHER, THIRD } from './fixtures.js';

test('membership follows subgroups, and settings name groups or list members', () => {
  const s = fresh({ realm_can_move_messages_between_topics_group: 2, realm_can_resolve_topics_group: 1 });
  assert.ok(inGroup(2, ME) && inGroup(2, OTHER));   // owners are a subgroup of members
  assert.ok(!inGroup(1, ME));
  assert.ok(settingAllows({ direct_members: [THIRD], direct_subgroups: [1] }, OTHER));
  assert.ok(!settingAllows({ direct_members: [THIRD], direct_subgroups: [] }, ME));
  assert.ok(may('can_move_messages_between_topics_group'));
  assert.ok(!may('can_resolve_topics_group'));
  s.groups.set(4, { id: 4, name: 'loop', is_system_group: true, members: [], direct_subgroup_ids: [4] });   // a cycle ends
  assert.ok(!inGroup(4, ME));
  assert.deepEqual(mentionableGroups().map((g) => g.name), ['backend']);
});
