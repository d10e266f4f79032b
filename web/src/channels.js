// The channels of the organization one may see: subscribe, unsubscribe, open one
// without subscribing, and create a new one (where the organization allows).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { may } from './groups.js';
import { channelHash } from './narrow.js';
import { state } from './store.js';

export function canCreateChannels() {
  return may('can_create_public_channel_group') || may('can_create_private_channel_group');
}

export function Channels() {
  const [filter, setFilter] = useState('');
  const [busy, setBusy] = useState({});
  const [error, setError] = useState('');
  const all = [...state.streams.values()].filter((s) => !s.is_archived)
    .filter((s) => s.name.toLowerCase().includes(filter.toLowerCase().trim()))
    .sort((a, b) => a.name.localeCompare(b.name));
  const change = async (stream, join) => {
    setBusy((b) => ({ ...b, [stream.stream_id]: true }));
    setError('');
    try {
      if (join) await api('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: stream.name }]) }, { retry: false });
      else await api('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify([stream.name]) }, { retry: false });
    } catch (e) {
      setError(`#${stream.name}: ${e.message}`);
    } finally {
      setBusy((b) => ({ ...b, [stream.stream_id]: false }));
    }
  };
  return html`<div class="channels-view">
    <div class="narrow-header"><h1>Channels</h1></div>
    <section aria-labelledby="browse-title">
      <h2 id="browse-title">All channels you can see</h2>
      <label for="channel-filter">Filter</label>
      <input id="channel-filter" type="search" value=${filter} placeholder="Channel name" onInput=${(e) => setFilter(e.currentTarget.value)} />
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <ul class="channel-list">
        ${all.map((s) => {
          const joined = state.subs.has(s.stream_id);
          return html`<li>
            <div class="channel-name">
              <a href=${channelHash(s.stream_id)}>${s.invite_only ? '🔒︎ ' : '#'}${s.name}</a>
              ${s.description ? html`<span class="hint">${s.description}</span>` : null}
            </div>
            <button type="button" class=${joined ? '' : 'primary'} disabled=${!!busy[s.stream_id]}
              aria-label=${`${joined ? 'Unsubscribe from' : 'Subscribe to'} #${s.name}`}
              onClick=${() => change(s, !joined)}>${joined ? 'Unsubscribe' : 'Subscribe'}</button>
          </li>`;
        })}
        ${all.length ? null : html`<li class="hint">No channel by that name.</li>`}
      </ul>
    </section>
    ${canCreateChannels() ? html`<${CreateChannel} />` : null}
  </div>`;
}

function CreateChannel() {
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const create = async (event) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const name = String(form.get('name') || '').trim();
    if (!name) { setError('The channel needs a name.'); return; }
    setError('');
    setStatus('Creating…');
    try {
      await api('POST', '/users/me/subscriptions', {
        subscriptions: JSON.stringify([{ name, description: String(form.get('description') || '') }]),
        invite_only: form.get('private') === 'on',
      }, { retry: false });
      setStatus(`Created #${name}.`);
      formElement.reset();
      // The channel arrives as an event: open it then.
      for (let i = 0; i < 50; i += 1) {
        const made = [...state.subs.values()].find((s) => s.name.toLowerCase() === name.toLowerCase());
        if (made) { window.location.hash = channelHash(made.stream_id); return; }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } catch (e) {
      setStatus('');
      setError(e.message);
    }
  };
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">Create a channel</h2>
    <form onSubmit=${create} class="create-channel">
      <label for="new-channel-name">Name</label>
      <input id="new-channel-name" name="name" maxlength=${state.realm.max_stream_name_length || 60} required />
      <label for="new-channel-description">Description</label>
      <input id="new-channel-description" name="description" maxlength=${state.realm.max_stream_description_length || 1024} />
      ${may('can_create_private_channel_group') ? html`<label class="inline"><input type="checkbox" name="private" /> Private: only people added can see it</label>` : null}
      <div><button type="submit" class="primary">Create channel</button> <span class="hint" role="status">${status}</span></div>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    </form>
  </section>`;
}
