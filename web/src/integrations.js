// Settings → Integrations, for organization administrators: make an incoming-webhook bot
// for one of the server's integrations (POST /register's realm_incoming_webhook_bots) and
// copy the URL to paste into the tool. A bot's key is stored only as a hash, so the URL of
// an existing bot is shown again by giving it a new key (which ends the old URL).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { state } from './store.js';

const INCOMING_WEBHOOK_BOT = 2;

// The URL a tool posts to: this server, the integration, the bot's key and the target.
export function integrationUrl(origin, integration, apiKey, stream, topic) {
  const query = new URLSearchParams({ api_key: apiKey });
  if (stream) query.set('stream', stream);
  if (topic) query.set('topic', topic);
  return `${origin}/api/v1/external/${encodeURIComponent(integration)}?${query}`;
}

// A short name the server accepts (lowercase letters, digits, '-'), unlikely to be taken.
export function shortName(name) {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 30);
  return `${slug || 'webhook'}-${Math.random().toString(36).slice(2, 6)}`;
}

function CopyableUrl({ url }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied('Copied');
    } catch {
      setCopied('Select the address and copy it');
    }
  };
  return html`<p><label for="integration-url">URL to paste into the tool</label>
    <input id="integration-url" readonly value=${url} onFocus=${(e) => e.currentTarget.select()} />
    <button type="button" onClick=${copy}>Copy URL</button> <span class="hint" role="status">${copied}</span></p>`;
}

export function Integrations() {
  const offered = state.realm.realm_incoming_webhook_bots || [];
  const [choice, setChoice] = useState(offered.length ? offered[0].name : '');
  const [stream, setStream] = useState('');
  const [url, setUrl] = useState('');
  const [status, setStatus] = useState('');
  const chosen = offered.find((i) => i.name === choice);
  const bots = (state.realm.realm_bots || []).filter((b) => b.bot_type === INCOMING_WEBHOOK_BOT && b.is_active);
  const channels = [...state.streams.values()].map((s) => s.name).sort();

  const run = async (call) => {
    setStatus('Working…');
    try {
      await call();
      setStatus('');
    } catch (e) {
      setStatus(`Not done: ${e.message}`);
    }
  };
  const create = (e) => {
    e.preventDefault();
    run(async () => {
      const made = await api('POST', '/bots', {
        full_name: `${chosen.display_name} bot ${Math.random().toString(36).slice(2, 5)}`,
        short_name: shortName(chosen.name), bot_type: INCOMING_WEBHOOK_BOT, service_name: chosen.name,
      }, { retry: false });
      setUrl(integrationUrl(window.location.origin, chosen.name, made.api_key, stream));
    });
  };
  const renew = (bot) => run(async () => {
    if (!window.confirm(`Give ${bot.full_name} a new key? Its current URL stops working.`)) return;
    const made = await api('POST', `/bots/${bot.user_id}/api_key/regenerate`, {}, { retry: false });
    setUrl(integrationUrl(window.location.origin, choice, made.api_key, stream));
  });

  if (!offered.length) return null;
  return html`<section aria-labelledby="integrations-title">
    <h2 id="integrations-title">Integrations</h2>
    <p>Tools such as GitHub, GitLab, Grafana or Sentry post into a channel through an
      incoming-webhook bot: paste its URL into the tool's webhook settings.</p>
    <form onSubmit=${create} class="row">
      <label for="integration-choice">Integration</label>
      <select id="integration-choice" value=${choice} onChange=${(e) => setChoice(e.currentTarget.value)}>
        ${offered.map((i) => html`<option value=${i.name}>${i.display_name}</option>`)}
      </select>
      <label for="integration-channel">Channel</label>
      <select id="integration-channel" value=${stream} onChange=${(e) => setStream(e.currentTarget.value)}>
        <option value="">Direct messages to me</option>
        ${channels.map((name) => html`<option value=${name}>#${name}</option>`)}
      </select>
      <button type="submit">Create a bot and its URL</button>
      <span class="hint" role="status">${status}</span>
    </form>
    ${url ? html`<${CopyableUrl} url=${url} />` : null}
    ${bots.length ? html`<ul aria-label="Incoming webhook bots">${bots.map((bot) => html`<li>
      ${bot.full_name} <button type="button" onClick=${() => renew(bot)}>New key and URL</button></li>`)}</ul>
      <p class="hint">A new key's URL is for the integration and channel chosen above.</p>` : null}
  </section>`;
}
