// A small organization in the client's state, for the unit tests: three people, two
// channels (one private), a group, and a registration's worth of settings.
import { resetState, state, loadRegistration } from '../src/store.js';

export const ME = 10;
export const OTHER = 11;
export const THIRD = 12;
export const GENERAL = 1;
export const SECRET = 2;

export function registration(overrides = {}) {
  return {
    user_id: ME, realm_name: 'Demo', user_settings: { desktop_icon_count_display: 1, color_scheme: 1 },
    realm_users: [
      { user_id: ME, full_name: 'Mei Member', email: 'mei@example.com', is_active: true },
      { user_id: OTHER, full_name: 'Olivia Owner', email: 'olivia@example.com', is_active: true },
      { user_id: THIRD, full_name: 'Oliver Other', email: 'user12@example.com', delivery_email: 'oliver@example.com', is_active: true },
    ],
    realm_bots: [],
    subscriptions: [{ stream_id: GENERAL, name: 'general', description: 'Everyone' }],
    streams: [{ stream_id: GENERAL, name: 'general' }, { stream_id: SECRET, name: 'secret', invite_only: true }, { stream_id: 3, name: 'design' }],
    unread_msgs: { streams: [], pms: [], huddles: [], mentions: [] },
    recent_private_conversations: [],
    user_topics: [],
    presences: {},
    user_status: {},
    realm_emoji: {},
    starred_messages: [],
    realm_user_groups: [
      { id: 1, name: 'role:owners', members: [OTHER], direct_subgroup_ids: [], is_system_group: true },
      { id: 2, name: 'role:members', members: [ME], direct_subgroup_ids: [1], is_system_group: true },
      { id: 3, name: 'backend', description: 'The backend team', members: [THIRD], direct_subgroup_ids: [], is_system_group: false },
    ],
    ...overrides,
  };
}

export function fresh(overrides) {
  resetState();
  loadRegistration(registration(overrides));
  return state;
}

let nextId = 100;

export function streamMessage(fields = {}) {
  nextId += 1;
  return { id: nextId, type: 'stream', stream_id: GENERAL, subject: 'lunch', display_recipient: 'general',
    sender_id: OTHER, sender_full_name: 'Olivia Owner', content: '<p>hi</p>', timestamp: 1, flags: [], reactions: [], ...fields };
}

export function directMessage(fields = {}) {
  nextId += 1;
  return { id: nextId, type: 'private', display_recipient: [{ id: ME, full_name: 'Mei Member' }, { id: OTHER, full_name: 'Olivia Owner' }],
    sender_id: OTHER, sender_full_name: 'Olivia Owner', content: '<p>psst</p>', timestamp: 1, flags: [], reactions: [], ...fields };
}
