// A person's card, opened from their name: who they are (name, role, status, presence,
// email as the organization shows it, local time) and what one does with them (a direct
// message, their messages).
import { html } from 'htm/preact';
import { Avatar } from './avatar.js';
import { composeTarget } from './compose.js';
import { dmHash, senderHash } from './narrow.js';
import { Popover } from './popover.js';
import { emojiChar } from './emoji.js';
import { state, presenceStatus, dmKey } from './store.js';

const ROLES = { 100: 'Owner', 200: 'Administrator', 300: 'Moderator', 400: 'Member', 600: 'Guest' };

export function roleOf(user) {
  if (user.is_bot) return 'Bot';
  return ROLES[user.role] || (user.is_owner ? 'Owner' : user.is_admin ? 'Administrator' : user.is_guest ? 'Guest' : 'Member');
}

/** The address to show: the real one when the organization lets this person see it. */
export function shownEmail(user) {
  return user.delivery_email || user.email;
}

function localTime(timezone) {
  if (!timezone) return '';
  try {
    return new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZone: timezone }).format(new Date());
  } catch { return ''; }
}

export function ProfileCard({ userId, anchor, onClose }) {
  const user = state.users.get(userId);
  if (!user) return null;
  const status = state.statuses.get(userId) || {};
  const presence = presenceStatus(userId);
  const time = localTime(user.timezone);
  const message = () => {
    composeTarget.value = { type: 'direct', userIds: [userId] };
    window.location.hash = dmHash(dmKey([userId]));
    onClose();
  };
  return html`<${Popover} anchor=${anchor} onClose=${onClose} label=${`About ${user.full_name}`} className="profile-card">
    <div class="profile-head">
      <${Avatar} userId=${userId} name=${user.full_name} url=${user.avatar_url} size=${64} />
      <div>
        <h2>${user.full_name}</h2>
        <p class="hint">${roleOf(user)} · <span class=${`presence ${presence}`} aria-hidden="true"></span> ${presence}</p>
      </div>
    </div>
    ${status.status_text || status.emoji_code ? html`<p class="profile-status">${status.emoji_code ? emojiChar(status.emoji_code) : ''} ${status.status_text || ''}</p>` : null}
    <dl>
      <dt>Email</dt><dd>${shownEmail(user)}</dd>
      ${time ? html`<dt>Local time</dt><dd>${time}</dd>` : null}
    </dl>
    <div class="profile-actions">
      ${userId !== state.me ? html`<button type="button" class="primary" onClick=${message}>Send a direct message</button>` : null}
      <a class="button" href=${senderHash(userId)} onClick=${onClose}>View messages sent</a>
    </div>
  <//>`;
}
