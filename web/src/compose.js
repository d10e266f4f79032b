// The compose box: to a channel and topic or to people, Markdown with a preview, Enter
// to send (Shift+Enter for a new line), typing notifications. What is typed stays in the
// box (and in this tab's session storage) until the server has the message.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { sendMessage, renderPreview, noteTyping, stopTyping } from './messages.js';
import { safeHtml } from './sanitize.js';
import { signal, useSignal } from './signal.js';
import { state, userName } from './store.js';

const DRAFT_KEY = 'teamchat.draft';
export const draft = signal(sessionStorage.getItem(DRAFT_KEY) || '');
draft.subscribe((text) => sessionStorage.setItem(DRAFT_KEY, text));
export const composeTarget = signal(null);   // {type:'stream', streamId, topic} | {type:'direct', userIds}

/** Where a narrow's compose box sends by default. */
export function targetFor(narrow) {
  const ops = narrow && narrow.ops ? narrow.ops : [];
  const channel = ops.find((o) => o.operator === 'channel');
  const topic = ops.find((o) => o.operator === 'topic');
  const dm = ops.find((o) => o.operator === 'dm');
  if (dm) return { type: 'direct', userIds: dm.operand.filter((id) => typeof id === 'number') };
  if (channel && typeof channel.operand === 'number') return { type: 'stream', streamId: channel.operand, topic: topic ? topic.operand : '' };
  const first = [...state.subs.values()][0];
  return { type: 'stream', streamId: first ? first.stream_id : 0, topic: '' };
}

function recipientsText(ids) {
  return ids.map((id) => (state.users.get(id) || {}).email || String(id)).join(', ');
}

function parseRecipients(text) {
  const ids = [];
  const unknown = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const lower = part.toLowerCase();
    const user = [...state.users.values()].find((u) => u.email.toLowerCase() === lower || u.full_name.toLowerCase() === lower);
    if (user) ids.push(user.user_id); else unknown.push(part);
  }
  return { ids, unknown };
}

export function Compose({ narrow, areaRef }) {
  const text = useSignal(draft);
  let target = useSignal(composeTarget) || targetFor(narrow);
  if (target.type === 'stream' && !state.subs.has(target.streamId) && state.subs.size) {
    target = { ...target, streamId: [...state.subs.keys()][0] };   // chosen before the registration
  }
  const [recipients, setRecipients] = useState('');
  const [preview, setPreview] = useState(null);
  const [error, setError] = useState('');
  const [sending, setSending] = useState(false);
  const localArea = useRef(null);
  const area = areaRef || localArea;

  useEffect(() => { composeTarget.value = targetFor(narrow); setError(''); }, [narrow && narrow.key]);
  useEffect(() => { if (target.type === 'direct') setRecipients(recipientsText(target.userIds)); }, [target.type === 'direct' ? target.userIds.join(',') : '']);

  const update = (changes) => { composeTarget.value = { ...target, ...changes }; };
  const resolved = () => {
    if (target.type === 'stream') {
      if (!target.streamId) return { error: 'Choose a channel.' };
      return { target };
    }
    const { ids, unknown } = parseRecipients(recipients);
    if (unknown.length) return { error: `Nobody here is called ${unknown.join(', ')}.` };
    if (!ids.length) return { error: 'Add at least one person.' };
    return { target: { type: 'direct', userIds: ids } };
  };

  const send = async () => {
    const content = draft.value;
    if (!content.trim() || sending) return;
    const { target: to, error: problem } = resolved();
    if (problem) { setError(problem); return; }
    setSending(true);
    setError('');
    try {
      await sendMessage(to, content);
      stopTyping();
      if (draft.value === content) draft.value = '';
      setPreview(null);
    } catch (e) {
      setError(`Not sent: ${e.message} Your text is still here; press Enter to try again.`);
    } finally {
      setSending(false);
    }
  };

  const togglePreview = async () => {
    if (preview !== null) { setPreview(null); return; }
    try {
      const data = await renderPreview(draft.value || ' ');
      setPreview(data.rendered);
    } catch (e) {
      setError(`No preview: ${e.message}`);
    }
  };

  const onKey = (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) { event.preventDefault(); send(); }
    else if (event.key === 'p' && event.altKey) { event.preventDefault(); togglePreview(); }
    else if (event.key === 'Escape') { event.preventDefault(); event.currentTarget.blur(); }
  };

  const onInput = (event) => {
    draft.value = event.currentTarget.value;
    if (preview !== null) setPreview(null);
    const { target: to } = resolved();
    if (draft.value) noteTyping(to); else stopTyping();
  };

  const topics = target.type === 'stream' ? (state.topics.get(target.streamId) || []) : [];
  return html`<form class="compose" aria-label="Compose a message" onSubmit=${(e) => { e.preventDefault(); send(); }}>
    <div class="compose-to">
      <label class="inline"><input type="radio" name="compose-type" checked=${target.type === 'stream'}
        onChange=${() => { composeTarget.value = targetFor(null); }} /> Channel</label>
      <label class="inline"><input type="radio" name="compose-type" checked=${target.type === 'direct'}
        onChange=${() => { composeTarget.value = { type: 'direct', userIds: [] }; setRecipients(''); }} /> Direct message</label>
      ${target.type === 'stream' ? html`
        <select aria-label="Channel" value=${String(target.streamId)} onChange=${(e) => update({ streamId: Number(e.currentTarget.value) })}>
          ${[...state.subs.values()].map((s) => html`<option value=${String(s.stream_id)}>#${s.name}</option>`)}
        </select>
        <input aria-label="Topic" placeholder="Topic" list="compose-topics" maxlength=${state.realm.max_topic_length || 60}
          value=${target.topic} onInput=${(e) => update({ topic: e.currentTarget.value })} />
        <datalist id="compose-topics">${topics.map((t) => html`<option value=${t.name} />`)}</datalist>`
      : html`<input aria-label="To (emails or names, separated by commas)" placeholder="To: email, email" list="compose-people"
          value=${recipients} onInput=${(e) => setRecipients(e.currentTarget.value)} />
        <datalist id="compose-people">${[...state.users.values()].filter((u) => !u.is_bot && u.user_id !== state.me).map((u) => html`<option value=${u.email}>${u.full_name}</option>`)}</datalist>`}
    </div>
    <textarea ref=${area} id="compose-text" aria-label="Message" placeholder=${placeholder(target)}
      value=${text} onInput=${onInput} onKeyDown=${onKey} rows="3"
      maxlength=${state.realm.max_message_length || 10000} aria-describedby="compose-help" />
    ${preview !== null ? html`<div class="preview content" aria-label="Preview" role="region" dangerouslySetInnerHTML=${{ __html: safeHtml(preview) }} />` : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <div class="compose-bar">
      <span id="compose-help" class="hint">Enter sends · Shift+Enter new line · Alt+P preview · Markdown</span>
      <button type="button" onClick=${togglePreview} aria-pressed=${preview !== null}>${preview !== null ? 'Edit' : 'Preview'}</button>
      <button type="submit" class="primary" disabled=${sending}>${sending ? 'Sending…' : 'Send'}</button>
    </div>
  </form>`;
}

function placeholder(target) {
  if (target.type === 'direct') return target.userIds.length ? `Message ${target.userIds.map(userName).join(', ')}` : 'Message';
  const stream = state.streams.get(target.streamId);
  return `Message #${stream ? stream.name : ''}${target.topic ? ' › ' + target.topic : ''}`;
}
