// A topic's own actions: mark it resolved (or not), and move or rename it (to another
// channel where the organization allows), the whole topic at once.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { may } from './groups.js';
import { moveTopic, topicMessageId } from './messages.js';
import { channelHash } from './narrow.js';
import { notice } from './notices.js';
import { Dialog } from './popover.js';
import { state } from './store.js';

export const RESOLVED_PREFIX = '✔ ';

export function isResolved(topic) {
  return topic.startsWith(RESOLVED_PREFIX);
}

/** The topic's name resolved, or unresolved. */
export function toggledName(topic) {
  return isResolved(topic) ? topic.slice(RESOLVED_PREFIX.length) : RESOLVED_PREFIX + topic;
}

export function canResolve() {
  return may('can_resolve_topics_group') || may('can_move_messages_between_topics_group');
}

export function canMove() {
  return may('can_move_messages_between_topics_group') || may('can_move_messages_between_channels_group');
}

async function move(streamId, topic, toTopic, toStream) {
  const id = await topicMessageId(streamId, topic);
  if (id === null) throw new Error('This topic has no messages.');
  await moveTopic(id, { toTopic, toStream, fromStream: streamId });
  window.location.hash = channelHash(toStream ?? streamId, toTopic);
}

export function resolveTopic(streamId, topic) {
  return move(streamId, topic, toggledName(topic)).catch((e) => notice('topic', `Not changed: ${e.message}`, 'error', 8000));
}

export function MoveTopic({ streamId, topic, onClose }) {
  const [name, setName] = useState(topic);
  const [target, setTarget] = useState(streamId);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const betweenChannels = may('can_move_messages_between_channels_group');
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      await move(streamId, topic, name.trim(), target);
      onClose();
    } catch (e) {
      setError(e.message);
      setBusy(false);
    }
  };
  return html`<${Dialog} onClose=${onClose} labelledBy="move-title">
    <form class="dialog-body" onSubmit=${submit}>
      <h2 id="move-title">Move or rename this topic</h2>
      <p class="hint">Every message of “${topic || 'general chat'}” moves.</p>
      ${betweenChannels ? html`<label for="move-channel">Channel</label>
        <select id="move-channel" value=${String(target)} onChange=${(e) => setTarget(Number(e.currentTarget.value))}>
          ${[...state.subs.values()].map((s) => html`<option value=${String(s.stream_id)}>#${s.name}</option>`)}
        </select>` : null}
      <label for="move-topic">Topic</label>
      <input id="move-topic" value=${name} maxlength=${state.realm.max_topic_length || 60} autofocus
        onInput=${(e) => setName(e.currentTarget.value)} />
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <div class="dialog-buttons">
        <button type="submit" class="primary" disabled=${busy}>${busy ? 'Moving…' : 'Move'}</button>
        <button type="button" onClick=${onClose}>Cancel</button>
      </div>
    </form>
  <//>`;
}
