// The Inbox (the start page): unread conversations, then the recent ones.
import { html } from 'htm/preact';
import { useEffect } from 'preact/hooks';
import { loadNarrow } from './messages.js';
import { channelHash, dmHash } from './narrow.js';
import { Count } from './sidebar.js';
import { state, isMuted, messageDmKey, narrowState, topicKey, userName } from './store.js';
import { unreadCounts } from './unread.js';

export const INBOX = { key: '[]', ops: [] };

export function Inbox() {
  useEffect(() => { loadNarrow(INBOX.key, INBOX.ops, { newest: true }); }, []);
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
  const topicName = (t) => t || state.realm.realm_empty_topic_display_name || 'general chat';
  return html`<div class="inbox">
    <div class="narrow-header"><h1>Inbox</h1></div>
    <section aria-labelledby="unread-title">
      <h2 id="unread-title">Unread</h2>
      ${unreadTopics.length || counts.dms.size ? html`<ul class="conversations">
        ${[...counts.dms].map(([key, n]) => html`<li><a href=${dmHash(key)}>${key.split(',').map(Number).map(userName).join(', ')}</a> <${Count} n=${n} /></li>`)}
        ${unreadTopics.map((t) => html`<li><a href=${channelHash(t.streamId, t.topic)}>#${(state.streams.get(t.streamId) || {}).name} › ${topicName(t.topic)}</a> <${Count} n=${t.n} /></li>`)}
      </ul>` : html`<p class="hint">You’re all caught up.</p>`}
    </section>
    <section aria-labelledby="recent-title">
      <h2 id="recent-title">Recent conversations</h2>
      <ul class="conversations">
        ${recent.map((m) => html`<li>${m.type === 'stream'
          ? html`<a href=${channelHash(m.stream_id, m.subject)}>#${(state.streams.get(m.stream_id) || {}).name || m.display_recipient} › ${topicName(m.subject)}</a>`
          : html`<a href=${dmHash(messageDmKey(m))}>${m.display_recipient.filter((r) => r.id !== state.me).map((r) => r.full_name).join(', ') || 'Notes to self'}</a>`}
          <span class="hint"> — ${m.sender_full_name}</span></li>`)}
      </ul>
      ${view.loading && !recent.length ? html`<p>Loading…</p>` : null}
    </section>
  </div>`;
}
