// Logging in at the organization's address (POST /fetch_api_key), or, at an address that
// names no organization, asking which one and going to its address.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { organizationUrl, saveSession } from './session.js';

export function Login({ onLogin, ended }) {
  const [server, setServer] = useState(null);
  const [error, setError] = useState(ended);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api('GET', '/server_settings', {}, { auth: false }).then(setServer).catch((e) => setError(e.message));
  }, []);
  const atOrganization = server && server.realm_name;
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    if (!atOrganization) {
      const subdomain = String(form.get('organization') || '').trim().toLowerCase();
      if (/^[a-z0-9-]+$/.test(subdomain)) window.location.assign(organizationUrl(subdomain));
      else setError('Type your organization’s short name, as in its address.');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const data = await api('POST', '/fetch_api_key', { username: form.get('email'), password: form.get('password') }, { auth: false, retry: false });
      const session = { email: data.email, apiKey: data.api_key, userId: data.user_id };
      saveSession(session, form.get('remember') === 'on');
      onLogin(session);
    } catch (e) {
      setError(e.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="login">
    <form onSubmit=${submit} aria-labelledby="login-title">
      <h1 id="login-title">${atOrganization ? `Log in to ${server.realm_name}` : 'teamchat'}</h1>
      ${!server && !error ? html`<p>Loading…</p>` : null}
      ${server && !atOrganization ? html`
        <p>Which organization? You log in at its own address.</p>
        <label for="organization">Organization</label>
        <input id="organization" name="organization" placeholder="e.g. demo" autocomplete="organization" required />
        <button class="primary" type="submit">Continue</button>` : null}
      ${atOrganization ? html`
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <label class="inline"><input type="checkbox" name="remember" checked /> Stay logged in on this device</label>
        <button class="primary" type="submit" disabled=${busy}>${busy ? 'Logging in…' : 'Log in'}</button>` : null}
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    </form>
  </main>`;
}
