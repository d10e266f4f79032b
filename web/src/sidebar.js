// The sidebar: Inbox, starred messages, the channels one is in (the open channel's
// topics under it), the channel browser, and the direct-message conversations, each with
// its unread count and (for people) presence. On a phone it is a drawer.
import { html } from 'htm/preact';
import { channelHash, dmHash, STARRED_HASH } from './narrow.js';
import { state, isMuted, userName, presenceStatus, topicKey } from './store.js';
import { openConversation, unreadCounts } from './unread.js';

export function Count({ n, label = 'unread' }) {
  return n ? html`<span class="count" aria-label=${`${n} ${label}`}>${n}</span>` : null;
}

export function Sidebar({ route, id, inert, onClose, onNavigate }) {
  const counts = unreadCounts();
  const open = openConversation(route);
  const subs = [...state.subs.values()].sort((a, b) => a.name.localeCompare(b.name));
  const dms = [...state.recentDms].sort((a, b) => b[1] - a[1]).slice(0, 30);
  for (const key of counts.dms.keys()) if (!dms.some(([k]) => k === key)) dms.unshift([key, 0]);
  const current = (href) => (window.location.hash === href ? 'page' : undefined);
  return html`<nav class="sidebar" id=${id} aria-label="Conversations" inert=${inert}
      onClick=${(e) => { if (onNavigate && e.target.closest && e.target.closest('a')) onNavigate(); }}
      onKeyDown=${(e) => { if (e.key === 'Escape' && onClose) { e.stopPropagation(); onClose(); } }}>
    <a class="nav-item" href="#inbox" aria-current=${route.view === 'inbox' ? 'page' : undefined}><span class="name">Inbox</span><${Count} n=${counts.total} /></a>
    <a class="nav-item" href=${STARRED_HASH} aria-current=${current(STARRED_HASH)}><span class="name">Starred messages</span><${Count} n=${state.starred.size} label="starred" /></a>
    <h2 id="channels-title">Channels</h2>
    <ul aria-labelledby="channels-title">
      ${subs.map((s) => {
        const isOpen = open.channel === s.stream_id;
        const topics = isOpen ? (state.topics.get(s.stream_id) || []) : [];
        return html`<li>
          <a class="nav-item" href=${channelHash(s.stream_id)} aria-current=${isOpen && open.topic === undefined ? 'page' : undefined} title=${`#${s.name}`}>
            <span class="swatch" aria-hidden="true" style=${{ background: s.color || '#888' }}></span><span class="name">#${s.name}</span><${Count} n=${counts.streams.get(s.stream_id)} /></a>
          ${isOpen && topics.length ? html`<ul class="topics" aria-label=${`Topics in #${s.name}`}>
            ${topics.slice(0, 30).map((t) => {
              const href = channelHash(s.stream_id, t.name);
              const muted = isMuted(s.stream_id, t.name);
              const name = t.name || state.realm.realm_empty_topic_display_name || 'general chat';
              return html`<li><a class=${`nav-item topic${muted ? ' muted' : ''}`} href=${href} aria-current=${current(href)} title=${name}>
                <span class="name">${name}</span>${muted ? html`<span class="sr-only"> (muted)</span>` : null}<${Count} n=${counts.topics.get(topicKey(s.stream_id, t.name))} /></a></li>`;
            })}
          </ul>` : null}
        </li>`;
      })}
      <li><a class="nav-item browse" href="#channels" aria-current=${route.view === 'channels' ? 'page' : undefined}><span class="name">Browse and create channels</span></a></li>
    </ul>
    <h2 id="dms-title">Direct messages</h2>
    <ul aria-labelledby="dms-title">
      ${dms.map(([key]) => {
        const ids = key.split(',').map(Number);
        const status = ids.length === 1 ? presenceStatus(ids[0]) : 'group';
        const href = dmHash(key);
        const names = ids.map(userName).join(', ');
        return html`<li><a class="nav-item" href=${href} aria-current=${current(href)} title=${names}>
          <span class=${`presence ${status}`} aria-hidden="true"></span><span class="name">${names}</span>
          ${status !== 'group' ? html`<span class="sr-only"> (${status})</span>` : null}<${Count} n=${counts.dms.get(key)} /></a></li>`;
      })}
      ${dms.length ? null : html`<li class="hint">No conversations yet</li>`}
    </ul>
  </nav>`;
}
