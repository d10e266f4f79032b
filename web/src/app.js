// The application shell: signing in, the sidebar, the views (Inbox, a narrow, settings),
// notices and the keyboard map.
import { html } from 'htm/preact';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, setCredentials, setUnauthorizedHandler } from './api.js';
import { Avatar } from './avatar.js';
import { Compose, composeTarget, draft } from './compose.js';
import { EventChannel } from './events.js';
import { MessageList } from './messagelist.js';
import {
  applyEvents, loadNarrow, loadTopics, markNarrowRead, narrowState, pingPresence, typersIn,
  refreshLoadedNarrows,
} from './messages.js';
import { channelHash, describe, dmHash, parseHash } from './narrow.js';
import { notices, notice } from './notices.js';
import { SearchBox } from './search.js';
import { forgetSession, loadSession, organizationUrl, saveSession } from './session.js';
import { Settings } from './settings.js';
import { useSignal } from './signal.js';
import {
  state, version, loadRegistration, unreadCounts, isMuted, userName, presenceStatus, topicKey,
  changed, messageDmKey, resetState,
} from './store.js';

export function App() {
  const [session, setSession] = useState(loadSession);
  const [ended, setEnded] = useState('');
  const logOut = useCallback((why = '') => {
    forgetSession();
    setCredentials(null);
    resetState();
    draft.value = '';   // a draft is the person's, not the tab's
    setEnded(why);
    setSession(null);
  }, []);
  useEffect(() => setUnauthorizedHandler(() => logOut('Your session has ended: please log in again.')), [logOut]);
  if (!session) return html`<${Login} onLogin=${setSession} ended=${ended} />`;
  return html`<${Chat} session=${session} onLogOut=${logOut} />`;
}

function Login({ onLogin, ended }) {
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

function useRoute() {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return useMemo(() => parseHash(hash), [hash]);
}

const INBOX = { key: '[]', ops: [] };

function Chat({ session, onLogOut }) {
  useSignal(version);
  const route = useRoute();
  const [ready, setReady] = useState(false);
  const [selected, setSelected] = useState(null);
  const [editing, setEditing] = useState(null);
  const [picking, setPicking] = useState(null);
  const [deleting, setDeleting] = useState(null);
  const [help, setHelp] = useState(false);
  const searchInput = useRef(null);
  const composeArea = useRef(null);
  const channel = useRef(null);
  const routeRef = useRef(route);
  routeRef.current = route;

  // Before the first render: the open narrow's messages are fetched while the queue is
  // registered (the first view needs only them), and the registration brings the rest.
  useMemo(() => { setCredentials(session.email, session.apiKey); if (!state.me) state.me = session.userId || 0; }, [session]);
  useEffect(() => {
    const events = new EventChannel({
      email: session.email, apiKey: session.apiKey,
      onRegistered: (data) => { loadRegistration(data); setReady(true); refreshLoadedNarrows(); },
      onEvents: (list) => applyEvents(list),
    });
    channel.current = events;
    // The open narrow's messages first (the first view), the registration right after.
    const first = routeRef.current.view === 'narrow' ? loadNarrow(routeRef.current.key, routeRef.current.ops) : null;
    Promise.resolve(first).finally(() => events.start().catch((e) => notice('register', `Could not load: ${e.message}`, 'error')));
    pingPresence();
    const presence = setInterval(pingPresence, 60_000);
    const typingTick = setInterval(() => { if (state.typing.size) changed(); }, 3000);
    return () => { events.stop(); clearInterval(presence); clearInterval(typingTick); };
  }, [session]);

  useEffect(() => { setSelected(null); setEditing(null); setPicking(null); }, [route.key, route.view]);
  useEffect(() => {
    const channelOp = route.ops && route.ops.find((o) => o.operator === 'channel');
    if (ready && channelOp && typeof channelOp.operand === 'number') loadTopics(channelOp.operand);
  }, [ready, route.key]);

  const actions = useMemo(() => ({
    editing, picking, deleting,
    edit: (id) => { setEditing(id); setPicking(null); if (id === null) focusSelected(); },
    pick: (id) => { setPicking(id); if (id === null) focusSelected(); },
    confirmDelete: (id) => { setDeleting(id); if (id === null) focusSelected(); },
  }), [editing, picking, deleting]);

  const narrow = route.view === 'narrow' ? route : null;
  const listKey = narrow ? narrow.key : INBOX.key;

  const moveSelection = (step) => {
    const visible = [...document.querySelectorAll('.messages .message')].map((el) => Number(el.dataset.id));
    if (!visible.length) return false;
    const focusedMessage = document.activeElement && document.activeElement.closest && document.activeElement.closest('.message');
    const at = visible.indexOf(focusedMessage ? Number(focusedMessage.dataset.id) : selected);
    const next = at < 0 ? visible[visible.length - 1] : visible[Math.min(Math.max(at + step, 0), visible.length - 1)];
    setSelected(next);
    requestAnimationFrame(() => {
      const el = document.getElementById(`message-${next}`);
      if (el) { el.focus(); el.scrollIntoView({ block: 'nearest' }); }
    });
  };

  useEffect(() => {
    const onKey = (event) => {
      const target = event.target;
      const typing = target.closest && target.closest('input, textarea, select, [contenteditable]');
      if (event.key === 'Escape') {
        if (document.querySelector('.dialog')) { setHelp(false); return; }
        if (typing) { target.blur(); focusSelected(); }
        return;
      }
      if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === 'Enter' && target.closest && target.closest('button, a')) return;
      // The message with focus, else the selected one (focus moves before state renders).
      const focused = target.closest && target.closest('.message');
      const id = focused ? Number(focused.dataset.id) : selected;
      const m = id ? state.messages.get(id) : null;
      // Each returns false when it does not apply, leaving the key to the browser.
      const mine = m && m.sender_id === state.me;
      const handlers = {
        '/': () => searchInput.current && searchInput.current.focus(),
        '?': () => setHelp((h) => !h),
        i: () => { window.location.hash = '#inbox'; },
        ',': () => { window.location.hash = '#settings'; },
        c: () => composeArea.current && composeArea.current.focus(),
        j: () => moveSelection(1), ArrowDown: () => moveSelection(1),
        k: () => moveSelection(-1), ArrowUp: () => moveSelection(-1),
        End: () => moveSelection(1e9), Home: () => moveSelection(-1e9),
        e: () => (mine ? actions.edit(m.id) : false),
        ':': () => (m ? actions.pick(m.id) : false), '+': () => (m ? actions.pick(m.id) : false),
        Delete: () => (mine ? actions.confirmDelete(m.id) : false),
        r: () => (m ? reply(m) : false), Enter: () => (m && focused ? reply(m) : false),
        R: () => (narrow ? markNarrowRead(narrow.ops) : false),
      };
      const handler = handlers[event.key];
      if (handler && handler() !== false) event.preventDefault();
    };
    const reply = (m) => {
      composeTarget.value = m.type === 'stream'
        ? { type: 'stream', streamId: m.stream_id, topic: m.subject }
        : { type: 'direct', userIds: m.display_recipient.map((r) => r.id).filter((id) => id !== state.me) };
      if (composeArea.current) composeArea.current.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  const focusSelected = () => requestAnimationFrame(() => {
    const el = document.querySelector('.messages .message.selected') || document.querySelector('.messages');
    if (el) el.focus();
  });

  return html`<div class="app">
    <a class="skip" href="#compose-text" onClick=${(e) => { e.preventDefault(); composeArea.current && composeArea.current.focus(); }}>Skip to the compose box</a>
    <header class="topbar">
      <a class="brand" href="#inbox">${state.realm.realm_name || 'teamchat'}</a>
      <${SearchBox} inputRef=${searchInput} key=${route.query || ''} initial=${route.query || ''} />
      <${ConnectionBadge} />
      <button type="button" class="link" onClick=${() => setHelp(true)} aria-keyshortcuts="?">Keys</button>
      <a href="#settings" class="me" aria-label="Settings" aria-keyshortcuts=",">
        <${Avatar} userId=${state.me} name=${(state.users.get(state.me) || {}).full_name}
          url=${(state.users.get(state.me) || {}).avatar_url} size=${28} /></a>
    </header>
    ${ready ? html`<${Sidebar} route=${route} />` : html`<nav class="sidebar" aria-label="Conversations" aria-busy="true"><p class="hint">Loading…</p></nav>`}
    <main class="main" aria-label=${route.view === 'settings' ? 'Settings' : narrow ? describe(narrow.ops, narrow.query) : 'Inbox'}>
      ${route.view === 'settings' && ready ? html`<${Settings} onLogOut=${() => { channel.current.stop(); onLogOut(); }} />` : null}
      ${route.view === 'inbox' && ready ? html`<${Inbox} key=${state.generation} />` : null}
      ${narrow ? html`<${NarrowHeader} narrow=${narrow} />
        <${MessageList} key=${`${state.generation}:${narrow.key}`} narrow=${narrow} selected=${selected} setSelected=${setSelected} actions=${actions} />
        <${Typing} narrow=${narrow} />` : null}
      ${route.view !== 'settings' ? html`<${Compose} narrow=${narrow} areaRef=${composeArea} />` : null}
    </main>
    <${Notices} />
    ${help ? html`<${KeyboardHelp} onClose=${() => setHelp(false)} />` : null}
  </div>`;
}

function ConnectionBadge() {
  const labels = { websocket: 'Live', longpoll: 'Live (polling)', reconnecting: 'Reconnecting…', connecting: 'Connecting…' };
  return html`<span class=${`connection ${state.connection}`} role="status" aria-label=${`Connection: ${labels[state.connection] || state.connection}`}>
    ${labels[state.connection] || state.connection}</span>`;
}

function Count({ n, label = 'unread' }) {
  return n ? html`<span class="count" aria-label=${`${n} ${label}`}>${n}</span>` : null;
}

function Sidebar({ route }) {
  const counts = unreadCounts();
  const openChannel = route.ops && route.ops.find((o) => o.operator === 'channel');
  const openTopic = route.ops && route.ops.find((o) => o.operator === 'topic');
  const subs = [...state.subs.values()].sort((a, b) => a.name.localeCompare(b.name));
  const dms = [...state.recentDms].sort((a, b) => b[1] - a[1]).slice(0, 30);
  for (const key of counts.dms.keys()) if (!dms.some(([k]) => k === key)) dms.unshift([key, 0]);
  const current = (href) => (window.location.hash === href ? 'page' : undefined);
  return html`<nav class="sidebar" aria-label="Conversations">
    <a class="nav-item" href="#inbox" aria-current=${route.view === 'inbox' ? 'page' : undefined}>Inbox <${Count} n=${counts.total} /></a>
    <h2 id="channels-title">Channels</h2>
    <ul aria-labelledby="channels-title">
      ${subs.map((s) => {
        const open = openChannel && openChannel.operand === s.stream_id;
        const topics = open ? (state.topics.get(s.stream_id) || []) : [];
        return html`<li>
          <a class="nav-item" href=${channelHash(s.stream_id)} aria-current=${open && !openTopic ? 'page' : undefined}>
            <span class="swatch" aria-hidden="true" style=${{ background: s.color || '#888' }}></span>#${s.name}<${Count} n=${counts.streams.get(s.stream_id)} /></a>
          ${open && topics.length ? html`<ul class="topics" aria-label=${`Topics in #${s.name}`}>
            ${topics.slice(0, 30).map((t) => {
              const href = channelHash(s.stream_id, t.name);
              const muted = isMuted(s.stream_id, t.name);
              return html`<li><a class=${`nav-item topic${muted ? ' muted' : ''}`} href=${href} aria-current=${current(href)}>
                ${t.name || '(no topic)'}${muted ? html`<span class="sr-only"> (muted)</span>` : null}<${Count} n=${counts.topics.get(topicKey(s.stream_id, t.name))} /></a></li>`;
            })}
          </ul>` : null}
        </li>`;
      })}
    </ul>
    <h2 id="dms-title">Direct messages</h2>
    <ul aria-labelledby="dms-title">
      ${dms.map(([key]) => {
        const ids = key.split(',').map(Number);
        const status = ids.length === 1 ? presenceStatus(ids[0]) : 'group';
        const href = dmHash(key);
        return html`<li><a class="nav-item" href=${href} aria-current=${current(href)}>
          <span class=${`presence ${status}`} aria-hidden="true"></span>${ids.map(userName).join(', ')}
          ${status !== 'group' ? html`<span class="sr-only"> (${status})</span>` : null}<${Count} n=${counts.dms.get(key)} /></a></li>`;
      })}
      ${dms.length ? null : html`<li class="hint">No conversations yet</li>`}
    </ul>
  </nav>`;
}

function NarrowHeader({ narrow }) {
  const topic = narrow.ops.find((o) => o.operator === 'topic');
  const channelOp = narrow.ops.find((o) => o.operator === 'channel');
  const muted = topic && channelOp && isMuted(channelOp.operand, topic.operand);
  const toggleMute = () => api('POST', '/user_topics', { stream_id: channelOp.operand, topic: topic.operand, visibility_policy: muted ? 0 : 1 }, { retry: false })
    .catch((e) => notice('mute', e.message, 'error', 6000));
  return html`<div class="narrow-header">
    <h1>${describe(narrow.ops, narrow.query)}</h1>
    ${narrow.query === undefined ? html`<button type="button" onClick=${() => markNarrowRead(narrow.ops)} aria-keyshortcuts="Shift+R">Mark all as read</button>` : null}
    ${topic && channelOp ? html`<button type="button" onClick=${toggleMute} aria-pressed=${!!muted}>${muted ? 'Unmute topic' : 'Mute topic'}</button>` : null}
  </div>`;
}

function Typing({ narrow }) {
  const keys = [];
  const channelOp = narrow.ops.find((o) => o.operator === 'channel');
  const topic = narrow.ops.find((o) => o.operator === 'topic');
  const dm = narrow.ops.find((o) => o.operator === 'dm');
  for (const key of state.typing.keys()) {
    if (dm && key === `d:${[...dm.operand].sort((a, b) => a - b).filter((id) => id !== state.me).join(',') || state.me}`) keys.push(key);
    if (channelOp && key.startsWith(`s:${channelOp.operand}:`) && (!topic || key === `s:${channelOp.operand}:${String(topic.operand).toLowerCase()}`)) keys.push(key);
  }
  const people = [...new Set(keys.flatMap(typersIn))];
  return html`<p class="typing" aria-live="polite">${people.length ? `${people.map(userName).join(', ')} ${people.length > 1 ? 'are' : 'is'} typing…` : ''}</p>`;
}

function Inbox() {
  useEffect(() => { loadNarrow(INBOX.key, INBOX.ops); }, []);
  const counts = unreadCounts();
  const recent = [];
  const seen = new Set();
  const view = narrowState(INBOX.key);
  for (let i = view.ids.length - 1; i >= 0; i -= 1) {
    const m = state.messages.get(view.ids[i]);
    if (!m) continue;
    const key = m.type === 'stream' ? topicKey(m.stream_id, m.subject) : `d:${messageDmKey(m)}`;
    if (seen.has(key) || (m.type === 'stream' && isMuted(m.stream_id, m.subject))) continue;
    seen.add(key);
    recent.push(m);
  }
  const unreadTopics = [...counts.topics].map(([key, n]) => {
    const [streamId, ...rest] = key.split(':');
    const entry = [...state.unread.values()].find((e) => e.kind === 'stream' && topicKey(e.stream_id, e.topic) === key);
    return { streamId: Number(streamId), topic: entry ? entry.topic : rest.join(':'), n };
  });
  return html`<div class="inbox">
    <div class="narrow-header"><h1>Inbox</h1></div>
    <section aria-labelledby="unread-title">
      <h2 id="unread-title">Unread</h2>
      ${unreadTopics.length || counts.dms.size ? html`<ul class="conversations">
        ${[...counts.dms].map(([key, n]) => html`<li><a href=${dmHash(key)}>${key.split(',').map(Number).map(userName).join(', ')}</a> <${Count} n=${n} /></li>`)}
        ${unreadTopics.map((t) => html`<li><a href=${channelHash(t.streamId, t.topic)}>#${(state.streams.get(t.streamId) || {}).name} › ${t.topic}</a> <${Count} n=${t.n} /></li>`)}
      </ul>` : html`<p class="hint">You’re all caught up.</p>`}
    </section>
    <section aria-labelledby="recent-title">
      <h2 id="recent-title">Recent conversations</h2>
      <ul class="conversations">
        ${recent.map((m) => html`<li>${m.type === 'stream'
          ? html`<a href=${channelHash(m.stream_id, m.subject)}>#${(state.streams.get(m.stream_id) || {}).name || m.display_recipient} › ${m.subject || '(no topic)'}</a>`
          : html`<a href=${dmHash(messageDmKey(m))}>${m.display_recipient.filter((r) => r.id !== state.me).map((r) => r.full_name).join(', ') || 'Notes to self'}</a>`}
          <span class="hint"> — ${m.sender_full_name}</span></li>`)}
      </ul>
      ${view.loading && !recent.length ? html`<p>Loading…</p>` : null}
    </section>
  </div>`;
}

function Notices() {
  const list = useSignal(notices);
  return html`<div class="notices" role="status" aria-live="polite">
    ${list.map((n) => html`<p class=${`notice ${n.kind}`} data-key=${n.key}>${n.text}</p>`)}
  </div>`;
}

export const KEYS = [
  ['/', 'Search'], ['i', 'Inbox'], [',', 'Settings'], ['c', 'Write a message (focus the compose box)'],
  ['j or ↓', 'Next message'], ['k or ↑', 'Previous message'], ['Home / End', 'First / last message shown'],
  ['r or Enter', 'Reply to the selected message'], ['e', 'Edit the selected message (yours)'],
  [': or +', 'React to the selected message'], ['Delete', 'Delete the selected message (yours)'],
  ['Shift+R', 'Mark everything in this view as read'], ['Enter (in compose)', 'Send'],
  ['Shift+Enter', 'New line'], ['Alt+P', 'Preview the message'], ['Esc', 'Close, or leave a text box'], ['?', 'This list'],
];

function KeyboardHelp({ onClose }) {
  const close = useRef(null);
  useLayoutEffect(() => close.current && close.current.focus(), []);
  return html`<div class="dialog-backdrop">
    <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="keys-title"
      onKeyDown=${(e) => { if (e.key === 'Escape' || e.key === '?') { e.preventDefault(); e.stopPropagation(); onClose(); } }}>
      <h2 id="keys-title">Keyboard shortcuts</h2>
      <table><tbody>${KEYS.map(([key, what]) => html`<tr><th scope="row"><kbd>${key}</kbd></th><td>${what}</td></tr>`)}</tbody></table>
      <button type="button" ref=${close} onClick=${onClose}>Close</button>
    </div>
  </div>`;
}
