// Permissions the organization grants through user groups (the `realm_can_*_group`
// settings): a setting names a group by id, or is an anonymous group of direct members
// and subgroups. The client asks only to show or hide a control; the server decides.
import { state } from './store.js';

const MAX_DEPTH = 32;   // nested subgroups are followed this deep, cycles or not

/** Whether a user is a member of a group, directly or through its subgroups. */
export function inGroup(groupId, userId, depth = 0) {
  const group = state.groups.get(groupId);
  if (!group || group.deactivated || depth > MAX_DEPTH) return false;
  if ((group.members || []).includes(userId)) return true;
  return (group.direct_subgroup_ids || []).some((id) => inGroup(id, userId, depth + 1));
}

/** Whether a group-setting value (an id, or {direct_members, direct_subgroups}) covers a user. */
export function settingAllows(value, userId = state.me) {
  if (typeof value === 'number') return inGroup(value, userId);
  if (value && typeof value === 'object') {
    return (value.direct_members || []).includes(userId)
      || (value.direct_subgroups || []).some((id) => inGroup(id, userId));
  }
  return false;
}

/** The organization setting `realm_<name>` applied to the signed-in person. */
export function may(name) {
  return settingAllows(state.realm[`realm_${name}`]);
}

/** Groups people can mention: not the role groups the server keeps for itself. */
export function mentionableGroups() {
  return [...state.groups.values()].filter((g) => !g.is_system_group && !g.deactivated);
}
