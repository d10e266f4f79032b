// Settings a person needs: name (and so their avatar's initials), status, notifications,
// muted topics, and for administrators an invitation link.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { Avatar, colourOf, generatedPicture, initials } from './avatar.js';
import { EMOJI, emojiChar } from './emoji.js';
import { Integrations } from './integrations.js';
import { channelHash } from './narrow.js';
import { askPermission, notificationsAllowed } from './notify.js';
import { state, MUTED } from './store.js';
import { SCHEMES, applyScheme } from './theme.js';

const NOTIFICATION_SETTINGS = [
  ['enable_offline_email_notifications', 'Email me about direct messages and mentions while I’m away'],
  ['enable_offline_push_notifications', 'Push notifications to my phone while I’m away'],
  ['enable_stream_email_notifications', 'Email me about new channel messages'],
  ['enable_stream_push_notifications', 'Push notifications for new channel messages'],
  ['enable_desktop_notifications', 'Desktop notifications for direct messages and mentions (in this browser, when allowed below)'],
];
const COUNT_DISPLAY = [[1, 'All unread messages'], [2, 'Direct messages and mentions'], [3, 'None']];

function useSaver() {
  const [status, setStatus] = useState({});
  const save = async (key, call) => {
    setStatus((s) => ({ ...s, [key]: 'Saving…' }));
    try {
      await call();
      setStatus((s) => ({ ...s, [key]: 'Saved' }));
    } catch (e) {
      setStatus((s) => ({ ...s, [key]: `Not saved: ${e.message}` }));
    }
  };
  return [status, save];
}

export function Settings({ onLogOut }) {
  const me = state.users.get(state.me) || {};
  const myStatus = state.statuses.get(state.me) || {};
  const [name, setName] = useState(me.full_name || '');
  const [statusText, setStatusText] = useState(myStatus.status_text || '');
  const [statusEmoji, setStatusEmoji] = useState(myStatus.emoji_name || '');
  const [invite, setInvite] = useState('');
  const [chosen, setChosen] = useState({});   // shown at once; the event confirms it
  const choose = (setting, value) => { setChosen((c) => ({ ...c, [setting]: value })); if (setting === 'color_scheme') applyScheme(value); toggle(setting, value); };
  const current = (setting) => chosen[setting] ?? state.settings[setting] ?? 1;
  const [permission, setPermission] = useState(typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);
  const [status, save] = useSaver();
  const muted = [...state.userTopics].filter(([, policy]) => policy === MUTED).map(([key]) => {
    const [streamId, ...rest] = key.split(':');
    return { streamId: Number(streamId), topic: rest.join(':') };
  });

  const saveName = (e) => { e.preventDefault(); save('name', () => api('PATCH', '/settings', { full_name: name }, { retry: false })); };
  const saveStatus = (e) => {
    e.preventDefault();
    const emoji = EMOJI.find((x) => x.name === statusEmoji);
    save('status', () => api('POST', '/users/me/status', {
      status_text: statusText, emoji_name: emoji ? emoji.name : '', emoji_code: emoji ? emoji.code : '',
      reaction_type: emoji ? 'unicode_emoji' : '',
    }, { retry: false }));
  };
  const toggle = (setting, value) => save(setting, () => api('PATCH', '/settings', { [setting]: value }, { retry: false }));
  const unmute = (t) => save(`mute-${t.streamId}-${t.topic}`, () => api('POST', '/user_topics', { stream_id: t.streamId, topic: t.topic, visibility_policy: 0 }, { retry: false }));
  const makeInvite = () => save('invite', async () => {
    const data = await api('POST', '/invites/multiuse', { invite_expires_in_minutes: 7 * 24 * 60, invite_as: 400 }, { retry: false });
    setInvite(data.invite_link);
  });

  return html`<div class="settings">
    <div class="narrow-header"><h1>Settings</h1></div>
    <section aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <form onSubmit=${saveName} class="row">
        <${Avatar} userId=${state.me} name=${name} url=${me.avatar_url} size=${56} />
        <div>
          <label for="full-name">Name</label>
          <input id="full-name" value=${name} maxlength="60" onInput=${(e) => setName(e.currentTarget.value)} />
          <button type="submit">Save name</button> <span class="hint" role="status">${status.name || ''}</span>
          ${generatedPicture(me.avatar_url)
            ? html`<p class="hint">Your avatar is a pattern your organization generated for you, the same for everyone.</p>`
            : html`<p class="hint">Your avatar shows your initials (${initials(name)}) on your colour (${colourOf(state.me)}),
            the same for everyone; the initials follow your name.</p>`}
        </div>
      </form>
    </section>
    <section aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      <form onSubmit=${saveStatus} class="row">
        <label for="status-emoji">Emoji</label>
        <select id="status-emoji" value=${statusEmoji} onChange=${(e) => setStatusEmoji(e.currentTarget.value)}>
          <option value="">None</option>
          ${EMOJI.map((x) => html`<option value=${x.name}>${emojiChar(x.code)} ${x.name.replace(/_/g, ' ')}</option>`)}
        </select>
        <label for="status-text">Status</label>
        <input id="status-text" value=${statusText} maxlength="60" placeholder="In a meeting" onInput=${(e) => setStatusText(e.currentTarget.value)} />
        <button type="submit">Set status</button> <span class="hint" role="status">${status.status || ''}</span>
      </form>
    </section>
    <section aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      ${NOTIFICATION_SETTINGS.map(([setting, label]) => html`<div>
        <label class="inline"><input type="checkbox" checked=${!!state.settings[setting]}
          onChange=${(e) => toggle(setting, e.currentTarget.checked)} /> ${label}</label>
        <span class="hint" role="status">${status[setting] || ''}</span></div>`)}
    </section>
    <section aria-labelledby="desktop-title">
      <h2 id="desktop-title">This browser</h2>
      ${permission === 'unsupported' ? html`<p class="hint">This browser shows no desktop notifications.</p>`
        : notificationsAllowed() ? html`<p>Desktop notifications are allowed in this browser.</p>`
        : html`<p><button type="button" onClick=${() => askPermission().then(setPermission)}>Allow desktop notifications</button>
          ${permission === 'denied' ? html` <span class="hint">The browser refused: allow them in its site settings.</span>` : null}</p>`}
      <fieldset>
        <legend>Unread count in the tab’s title and icon</legend>
        ${COUNT_DISPLAY.map(([value, label]) => html`<label class="inline"><input type="radio" name="count-display"
          checked=${current('desktop_icon_count_display') === value}
          onChange=${() => choose('desktop_icon_count_display', value)} /> ${label}</label>`)}
        <span class="hint" role="status">${status.desktop_icon_count_display || ''}</span>
      </fieldset>
      <fieldset>
        <legend>Theme</legend>
        ${SCHEMES.map(([value, label]) => html`<label class="inline"><input type="radio" name="color-scheme"
          checked=${current('color_scheme') === value}
          onChange=${() => choose('color_scheme', value)} /> ${label}</label>`)}
        <span class="hint" role="status">${status.color_scheme || ''}</span>
      </fieldset>
    </section>
    <section aria-labelledby="muted-title">
      <h2 id="muted-title">Muted topics</h2>
      ${muted.length ? html`<ul>${muted.map((t) => html`<li>
        <a href=${channelHash(t.streamId, t.topic)}>#${(state.streams.get(t.streamId) || {}).name} › ${t.topic}</a>
        <button type="button" onClick=${() => unmute(t)}>Unmute</button>
        <span class="hint" role="status">${status[`mute-${t.streamId}-${t.topic}`] || ''}</span></li>`)}</ul>`
      : html`<p class="hint">No muted topics. Mute one from its header.</p>`}
    </section>
    ${state.realm.is_admin ? html`<section aria-labelledby="invite-title">
      <h2 id="invite-title">Invite people</h2>
      <p>A link anyone can use to join ${state.realm.realm_name} as a member, for 7 days.</p>
      <button type="button" onClick=${makeInvite}>Create an invitation link</button>
      <span class="hint" role="status">${status.invite && status.invite !== 'Saved' ? status.invite : ''}</span>
      ${invite ? html`<p><label for="invite-link">Invitation link</label>
        <input id="invite-link" readonly value=${invite} onFocus=${(e) => e.currentTarget.select()} /></p>` : null}
    </section>` : null}
    ${state.realm.is_admin ? html`<${Integrations} />` : null}
    <section aria-labelledby="session-title">
      <h2 id="session-title">Session</h2>
      <p>Signed in as ${((u) => u.delivery_email || u.email)(state.users.get(state.me) || {})}.</p>
      <button type="button" class="danger" onClick=${onLogOut}>Log out</button>
    </section>
  </div>`;
}
