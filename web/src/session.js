// The signed-in session: the email and API key POST /fetch_api_key returned, kept in
// this origin's storage (localStorage to stay signed in, sessionStorage for this tab
// only): never in a URL or a cookie, so no request carries it unless the client adds it.
const KEY = 'teamchat.session';

export function loadSession() {
  for (const store of [sessionStorage, localStorage]) {
    try {
      const saved = JSON.parse(store.getItem(KEY) || 'null');
      if (saved && saved.email && saved.apiKey) return saved;
    } catch (error) { /* a damaged entry is no session */ }
  }
  return null;
}

export function saveSession(session, remember) {
  forgetSession();
  (remember ? localStorage : sessionStorage).setItem(KEY, JSON.stringify(session));
}

export function forgetSession() {
  localStorage.removeItem(KEY);
  sessionStorage.removeItem(KEY);
}

/** The organization's own address for a subdomain typed on the root domain's page. */
export function organizationUrl(subdomain) {
  const { protocol, hostname, port } = window.location;
  const root = /^[\d.]+$/.test(hostname) || hostname === '[::1]' ? 'localhost' : hostname;
  return `${protocol}//${subdomain}.${root}${port ? ':' + port : ''}/`;
}
