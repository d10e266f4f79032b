// The application shell: signing in, the top bar, the sidebar (a drawer on a phone), the
// views (Inbox, a narrow, channels, settings), notices, overlays and the keyboard map.
import { html } from 'htm/preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, setCredentials, setUnauthorizedHandler } from './api.js';
import { Avatar } from './avatar.js';
import { Channels } from './channels.js';
import { Compose, composeTarget, draft } from './compose.js';
import { EventChannel } from './events.js';
import { Inbox } from './inbox.js';
import { KeyboardHelp } from './keys.js';
import { Login } from './login.js';
import { MessageList, jumpToNewest } from './messagelist.js';
import { loadNarrow, loadTopics, markNarrowRead, pingPresence, refreshLoadedNarrows, setStarred } from './messages.js';
import { channelOf, describe, parseHash, topicOf } from './narrow.js';
import { notices, notice } from './notices.js';
import { notifyArrivals, showCount } from './notify.js';
import { PHONE_QUERY, overlayOpen } from './popover.js';
import { ProfileCard } from './profile.js';
import { applyEvents, typersIn } from './reducer.js';
import { SearchBox } from './search.js';
import { forgetSession, loadSession } from './session.js';
import { Settings } from './settings.js';
import { Sidebar } from './sidebar.js';
import { useSignal } from './signal.js';
import { state, version, loadRegistration, isMuted, userName, changed, resetState } from './store.js';
import { applyScheme } from './theme.js';
import { MoveTopic, canMove, canResolve, isResolved, resolveTopic } from './topics.js';
import { titleCount } from './unread.js';

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

function useRoute() {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return useMemo(() => parseHash(hash), [hash]);
}

function useMedia(query) {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const onChange = () => setMatches(list.matches);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

function Chat({ session, onLogOut }) {
  useSignal(version);
  const route = useRoute();
  const phone = useMedia(PHONE_QUERY);
  const [ready, setReady] = useState(false);
  const [selected, setSelected] = useState(null);
  const [editing, setEditing] = useState(null);
  const [picking, setPicking] = useState(null);
  const [deleting, setDeleting] = useState(null);
  const [profile, setProfile] = useState(null);
  const [moving, setMoving] = useState(false);
  const [help, setHelp] = useState(false);
  const [drawer, setDrawer] = useState(false);
  const searchInput = useRef(null);
  const composeArea = useRef(null);
  const menuButton = useRef(null);
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
      onEvents: (list) => notifyArrivals(applyEvents(list)),
    });
    channel.current = events;
    const first = routeRef.current.view === 'narrow' ? loadNarrow(routeRef.current.key, routeRef.current.ops) : null;
    Promise.resolve(first).finally(() => events.start().catch((e) => notice('register', `Could not load: ${e.message}`, 'error')));
    pingPresence();
    const presence = setInterval(pingPresence, 60_000);
    const typingTick = setInterval(() => { if (state.typing.size) changed(); }, 3000);
    return () => { events.stop(); clearInterval(presence); clearInterval(typingTick); };
  }, [session]);

  useEffect(() => { setSelected(null); setEditing(null); setPicking(null); setProfile(null); setDrawer(false); }, [route.key, route.view]);
  const openChannel = route.view === 'narrow' && route.query === undefined ? channelOf(route.ops) : undefined;
  useEffect(() => { if (ready && openChannel !== undefined) loadTopics(openChannel); }, [ready, openChannel]);
  useEffect(() => { if (ready) applyScheme(state.settings.color_scheme); }, [ready, state.settings.color_scheme]);

  const narrow = route.view === 'narrow' ? route : null;
  const viewName = route.view === 'settings' ? 'Settings' : route.view === 'channels' ? 'Channels' : narrow ? describe(narrow.ops, narrow.query) : 'Inbox';
  useEffect(() => { showCount(ready ? titleCount() : 0, viewName, state.realm.realm_name); });

  const focusSelected = () => requestAnimationFrame(() => {
    const el = document.querySelector('.messages .message.selected') || document.querySelector('.messages');
    if (el) el.focus();
  });
  const actions = useMemo(() => ({
    editing, picking, deleting,
    edit: (id) => { setEditing(id); setPicking(null); if (id === null) focusSelected(); },
    pick: (id) => { setPicking(id); if (id === null) focusSelected(); },
    confirmDelete: (id) => { setDeleting(id); if (id === null) focusSelected(); },
    profile: (card) => setProfile(card),
  }), [editing, picking, deleting]);

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
        if (overlayOpen()) return;
        if (drawer) { setDrawer(false); return; }
        if (typing) { target.blur(); focusSelected(); }
        return;
      }
      if (typing || event.ctrlKey || event.metaKey || event.altKey || overlayOpen()) return;
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
        End: () => { jumpToNewest.value += 1; return moveSelection(1e9); }, Home: () => moveSelection(-1e9),
        e: () => (mine ? actions.edit(m.id) : false),
        ':': () => (m ? actions.pick(m.id) : false), '+': () => (m ? actions.pick(m.id) : false),
        '*': () => (m ? setStarred(m, !state.starred.has(m.id)).catch((e) => notice('star', e.message, 'error', 6000)) : false),
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

  const closeDrawer = () => { setDrawer(false); if (menuButton.current) menuButton.current.focus(); };
  useEffect(() => {
    if (drawer) requestAnimationFrame(() => { const first = document.querySelector('#sidebar a'); if (first) first.focus(); });
  }, [drawer]);

  const hasCompose = route.view === 'narrow' || route.view === 'inbox';
  const me = state.users.get(state.me) || {};
  return html`<div class=${`app${drawer ? ' drawer-open' : ''}`}>
    <a class="skip" href=${hasCompose ? '#compose-text' : '#main'} onClick=${(e) => {
      e.preventDefault();
      const to = hasCompose ? composeArea.current : document.getElementById('main');
      if (to) to.focus();
    }}>${hasCompose ? 'Skip to the compose box' : 'Skip to the main content'}</a>
    <header class="topbar">
      <button type="button" class="menu-button" ref=${menuButton} aria-expanded=${drawer} aria-controls="sidebar"
        onClick=${() => setDrawer(!drawer)}><span aria-hidden="true">☰ </span>Menu</button>
      <a class="brand" href="#inbox">${state.realm.realm_name || 'teamchat'}</a>
      <${SearchBox} inputRef=${searchInput} key=${route.query || ''} initial=${route.query || ''} />
      <${ConnectionBadge} />
      <button type="button" class="link keys-button" onClick=${() => setHelp(true)} aria-keyshortcuts="?">Keys</button>
      <a href="#settings" class="me" aria-keyshortcuts="," title="Settings">
        <${Avatar} userId=${state.me} name=${me.full_name} url=${me.avatar_url} size=${28} /><span class="sr-only">Settings</span></a>
    </header>
    ${ready ? html`<${Sidebar} route=${route} id="sidebar" inert=${phone && !drawer} onClose=${closeDrawer} onNavigate=${() => setDrawer(false)} />`
      : html`<nav class="sidebar" id="sidebar" aria-label="Conversations" aria-busy="true" inert=${phone && !drawer}><p class="hint">Loading…</p></nav>`}
    ${drawer ? html`<div class="drawer-backdrop" onClick=${closeDrawer}></div>` : null}
    <main class="main" id="main" tabindex="-1" aria-label=${viewName}>
      ${route.view === 'settings' && ready ? html`<${Settings} onLogOut=${() => { channel.current.stop(); onLogOut(); }} />` : null}
      ${route.view === 'channels' && ready ? html`<${Channels} />` : null}
      ${route.view === 'inbox' && ready ? html`<${Inbox} key=${state.generation} />` : null}
      ${narrow ? html`<${NarrowHeader} narrow=${narrow} onMove=${() => setMoving(true)} />
        <${MessageList} key=${`${state.generation}:${narrow.key}`} narrow=${narrow} selected=${selected} setSelected=${setSelected} actions=${actions} />
        <${Typing} narrow=${narrow} />` : null}
      <${Notices} />
      ${hasCompose ? html`<${Compose} narrow=${narrow} areaRef=${composeArea} />` : null}
    </main>
    ${help ? html`<${KeyboardHelp} onClose=${() => setHelp(false)} />` : null}
    ${profile ? html`<${ProfileCard} userId=${profile.userId} anchor=${profile.anchor} onClose=${() => setProfile(null)} />` : null}
    ${moving && narrow ? html`<${MoveTopic} streamId=${channelOf(narrow.ops)} topic=${topicOf(narrow.ops)} onClose=${() => setMoving(false)} />` : null}
  </div>`;
}

function ConnectionBadge() {
  const labels = { websocket: 'Live', longpoll: 'Live (polling)', reconnecting: 'Reconnecting…', connecting: 'Connecting…' };
  return html`<span class=${`connection ${state.connection}`} role="status" aria-label=${`Connection: ${labels[state.connection] || state.connection}`}>
    ${labels[state.connection] || state.connection}</span>`;
}

function NarrowHeader({ narrow, onMove }) {
  const channelId = narrow.query === undefined ? channelOf(narrow.ops) : undefined;
  const topic = channelId !== undefined ? topicOf(narrow.ops) : undefined;
  const inTopic = topic !== undefined;
  const muted = inTopic && isMuted(channelId, topic);
  const toggleMute = () => api('POST', '/user_topics', { stream_id: channelId, topic, visibility_policy: muted ? 0 : 1 }, { retry: false })
    .catch((e) => notice('mute', e.message, 'error', 6000));
  return html`<div class="narrow-header">
    <h1 title=${describe(narrow.ops, narrow.query)}>${describe(narrow.ops, narrow.query)}</h1>
    <div class="header-actions">
      ${narrow.query === undefined ? html`<button type="button" onClick=${() => markNarrowRead(narrow.ops)} aria-keyshortcuts="Shift+R">Mark all as read</button>` : null}
      ${inTopic ? html`<button type="button" onClick=${toggleMute} aria-pressed=${!!muted}>${muted ? 'Unmute topic' : 'Mute topic'}</button>` : null}
      ${inTopic && canResolve() ? html`<button type="button" onClick=${() => resolveTopic(channelId, topic)}>${isResolved(topic) ? 'Mark as unresolved' : 'Mark as resolved'}</button>` : null}
      ${inTopic && canMove() ? html`<button type="button" aria-haspopup="dialog" onClick=${onMove}>Move or rename</button>` : null}
    </div>
  </div>`;
}

function Typing({ narrow }) {
  const keys = [];
  const channelId = narrow.query === undefined ? channelOf(narrow.ops) : undefined;
  const topic = topicOf(narrow.ops);
  const dm = narrow.ops.find((o) => o.operator === 'dm');
  for (const key of state.typing.keys()) {
    if (dm && key === `d:${[...dm.operand].sort((a, b) => a - b).filter((id) => id !== state.me).join(',') || state.me}`) keys.push(key);
    if (channelId !== undefined && key.startsWith(`s:${channelId}:`) && (topic === undefined || key === `s:${channelId}:${topic.toLowerCase()}`)) keys.push(key);
  }
  const people = [...new Set(keys.flatMap(typersIn))];
  return html`<p class="typing" aria-live="polite">${people.length ? `${people.map(userName).join(', ')} ${people.length > 1 ? 'are' : 'is'} typing…` : ''}</p>`;
}

function Notices() {
  const list = useSignal(notices);
  return html`<div class="notices" role="status" aria-live="polite">
    ${list.map((n) => html`<p class=${`notice ${n.kind}`} data-key=${n.key}>${n.text}</p>`)}
  </div>`;
}

