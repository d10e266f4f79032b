// The compose box: to a channel and topic or to people, Markdown with a preview, Enter
// to send (Shift+Enter for a new line), typing notifications, autocomplete for people,
// groups, channels, topics and emoji, and files (a button, dropped or pasted). What is
// typed stays in the box (and in this tab's session storage) until the server has it.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { emojiNow, loadEmoji } from './emoji.js';
import { jumpToNewest } from './messagelist.js';
import { loadTopics, sendMessage, renderPreview, noteTyping, stopTyping } from './messages.js';
import { channelOf, topicOf } from './narrow.js';
import { Popover } from './popover.js';
import { safeHtml } from './sanitize.js';
import { signal, useSignal } from './signal.js';
import { state, userName } from './store.js';
import { candidates, complete, findToken } from './typeahead.js';
import { uploadFile, uploadMarkdown } from './uploads.js';

const DRAFT_KEY = 'teamchat.draft';
export const draft = signal(sessionStorage.getItem(DRAFT_KEY) || '');
draft.subscribe((text) => sessionStorage.setItem(DRAFT_KEY, text));
export const composeTarget = signal(null);   // {type:'stream', streamId, topic} | {type:'direct', userIds}

/** Where a narrow's compose box sends by default; outside a conversation (the Inbox, a
 * search) nothing is chosen, and sending asks for a channel first. */
export function targetFor(narrow) {
  const ops = narrow && narrow.query === undefined && narrow.ops ? narrow.ops : [];
  const channel = channelOf(ops);
  const dm = ops.find((o) => o.operator === 'dm' && !o.negated);
  if (dm) return { type: 'direct', userIds: dm.operand.filter((id) => typeof id === 'number') };
  if (channel !== undefined) return { type: 'stream', streamId: channel, topic: topicOf(ops) ?? '' };
  return { type: 'stream', streamId: 0, topic: '' };
}

/** The To field's text: each person's address as this person may see it (the real one,
 * `delivery_email`, when the organization shows it; else the one the API names them by). */
function recipientsText(ids) {
  return ids.map((id) => { const u = state.users.get(id) || {}; return u.delivery_email || u.email || String(id); }).join(', ');
}

function parseRecipients(text) {
  const ids = [];
  const unknown = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const lower = part.toLowerCase();
    const user = [...state.users.values()].find((u) => u.email.toLowerCase() === lower || (u.delivery_email || '').toLowerCase() === lower || u.full_name.toLowerCase() === lower);
    if (user) ids.push(user.user_id); else unknown.push(part);
  }
  return { ids, unknown };
}

function topicNames(streamId) {
  if (!state.topics.has(streamId)) loadTopics(streamId);
  return (state.topics.get(streamId) || []).map((t) => t.name);
}

/** Uploads under way: [{id, name, progress}] (shown under the box). */
function useUploads(insert) {
  const [list, setList] = useState([]);
  const [error, setError] = useState('');
  const upload = (files) => {
    for (const file of files) {
      const id = `${Date.now()}-${Math.random()}`;
      const marker = `[Uploading ${file.name || 'image'}…]()`;
      insert(marker);
      setList((l) => [...l, { id, name: file.name || 'image', progress: 0 }]);
      uploadFile(file, (progress) => setList((l) => l.map((u) => (u.id === id ? { ...u, progress } : u))))
        .then((result) => { draft.value = draft.value.replace(marker, uploadMarkdown(result)); })
        .catch((e) => { draft.value = draft.value.replace(marker, ''); setError(`Not uploaded: ${file.name}: ${e.message}`); })
        .finally(() => setList((l) => l.filter((u) => u.id !== id)));
    }
  };
  return { list, error, setError, upload };
}

export function Compose({ narrow, areaRef }) {
  const text = useSignal(draft);
  let target = useSignal(composeTarget) || targetFor(narrow);
  const [recipients, setRecipients] = useState('');
  const [preview, setPreview] = useState(null);
  const [error, setError] = useState('');
  const [sending, setSending] = useState(false);
  const [token, setToken] = useState(null);
  const [active, setActive] = useState(0);
  const [dragging, setDragging] = useState(false);
  const localArea = useRef(null);
  const area = areaRef || localArea;
  const fileInput = useRef(null);

  useEffect(() => { composeTarget.value = targetFor(narrow); setError(''); }, [narrow && narrow.key]);
  useEffect(() => { if (target.type === 'direct') setRecipients(recipientsText(target.userIds)); }, [target.type === 'direct' ? target.userIds.join(',') : '']);
  if (target.type === 'stream' && target.streamId && !state.streams.has(target.streamId) && state.registered) target = { ...target, streamId: 0 };

  const insert = (snippet) => {
    const el = area.current;
    const at = el ? el.selectionEnd : draft.value.length;
    const before = draft.value.slice(0, at);
    const pad = before && !/\s$/.test(before) ? ' ' : '';
    draft.value = before + pad + snippet + draft.value.slice(at);
  };
  const uploads = useUploads(insert);

  const update = (changes) => { composeTarget.value = { ...target, ...changes }; };
  const resolved = () => {
    if (target.type === 'stream') {
      if (!target.streamId) return { error: 'Choose a channel to send to.' };
      if (!target.topic.trim() && state.realm.realm_mandatory_topics) return { error: 'Add a topic.' };
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
    if (uploads.list.length) { setError('Wait for the upload to finish.'); return; }
    const { target: to, error: problem } = resolved();
    if (problem) { setError(problem); return; }
    setSending(true);
    setError('');
    try {
      await sendMessage(to, content);
      stopTyping();
      if (draft.value === content) draft.value = '';
      setPreview(null);
      jumpToNewest.value += 1;
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

  // The emoji table is loaded only once an emoji is being typed (a file of its own).
  const context = { inChannel: target.type === 'stream', topicsOf: topicNames, emoji: token && token.kind === 'emoji' ? emojiNow() : [] };
  const choices = token ? candidates(token, context) : [];
  const listOpen = choices.length > 0;

  const follow = (el) => {
    const found = findToken(el.value, el.selectionEnd);
    if (found && found.kind === 'emoji') loadEmoji().then(() => setToken((t) => (t ? { ...t } : t)));
    setToken(found);
    setActive(0);
  };

  const choose = (choice) => {
    const el = area.current;
    const next = complete(draft.value, el.selectionEnd, token, choice);
    // The box's value and caret first (the render that follows finds them as they are).
    el.value = next.text;
    el.focus();
    el.setSelectionRange(next.caret, next.caret);
    draft.value = next.text;
    follow(el);
  };

  const onKey = (event) => {
    if (listOpen) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((n) => (n + step + choices.length) % choices.length);
        return;
      }
      if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') {
        event.preventDefault();
        choose(choices[Math.min(active, choices.length - 1)]);
        return;
      }
      if (event.key === 'Escape') { event.preventDefault(); event.stopPropagation(); setToken(null); return; }
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) { event.preventDefault(); send(); }
    else if (event.key === 'p' && event.altKey) { event.preventDefault(); togglePreview(); }
    else if (event.key === 'Escape') { event.preventDefault(); event.currentTarget.blur(); }
  };

  const onInput = (event) => {
    draft.value = event.currentTarget.value;
    if (preview !== null) setPreview(null);
    follow(event.currentTarget);
    const { target: to } = resolved();
    if (draft.value) noteTyping(to); else stopTyping();
  };

  const onPaste = (event) => {
    const files = [...(event.clipboardData ? event.clipboardData.files : [])];
    if (files.length) { event.preventDefault(); uploads.upload(files); }
  };
  const onDrop = (event) => {
    setDragging(false);
    const files = [...(event.dataTransfer ? event.dataTransfer.files : [])];
    if (files.length) { event.preventDefault(); uploads.upload(files); }
  };
  const onDragOver = (event) => {
    if (event.dataTransfer && [...event.dataTransfer.types].includes('Files')) { event.preventDefault(); setDragging(true); }
  };

  const topics = target.type === 'stream' && target.streamId ? topicNames(target.streamId) : [];
  const shownError = error || uploads.error;
  return html`<form class=${`compose${dragging ? ' dragging' : ''}`} aria-label="Compose a message" onSubmit=${(e) => { e.preventDefault(); send(); }}
      onDragOver=${onDragOver} onDragLeave=${() => setDragging(false)} onDrop=${onDrop}>
    <div class="compose-to">
      <label class="inline"><input type="radio" name="compose-type" checked=${target.type === 'stream'}
        onChange=${() => { composeTarget.value = targetFor(narrow); if (composeTarget.value.type !== 'stream') composeTarget.value = { type: 'stream', streamId: 0, topic: '' }; }} /> Channel</label>
      <label class="inline"><input type="radio" name="compose-type" checked=${target.type === 'direct'}
        onChange=${() => { composeTarget.value = { type: 'direct', userIds: [] }; setRecipients(''); }} /> Direct message</label>
      ${target.type === 'stream' ? html`
        <select aria-label="Channel" value=${String(target.streamId)} onChange=${(e) => { update({ streamId: Number(e.currentTarget.value) }); setError(''); }}>
          ${target.streamId ? null : html`<option value="0">Choose a channel…</option>`}
          ${[...state.subs.values()].sort((a, b) => a.name.localeCompare(b.name)).map((s) => html`<option value=${String(s.stream_id)}>#${s.name}</option>`)}
        </select>
        <input aria-label="Topic" placeholder=${state.realm.realm_mandatory_topics ? 'Topic' : `Topic (empty: ${state.realm.realm_empty_topic_display_name || 'general chat'})`} list="compose-topics" maxlength=${state.realm.max_topic_length || 60}
          value=${target.topic} onInput=${(e) => update({ topic: e.currentTarget.value })} />
        <datalist id="compose-topics">${topics.map((t) => html`<option value=${t} />`)}</datalist>`
      : html`<input aria-label="To (emails or names, separated by commas)" placeholder="To: email, email" list="compose-people"
          value=${recipients} onInput=${(e) => setRecipients(e.currentTarget.value)} />
        <datalist id="compose-people">${[...state.users.values()].filter((u) => !u.is_bot && u.user_id !== state.me).map((u) => html`<option value=${u.delivery_email || u.email}>${u.full_name}</option>`)}</datalist>`}
    </div>
    <textarea ref=${area} id="compose-text" aria-label="Message" placeholder=${placeholder(target)}
      value=${text} onInput=${onInput} onKeyDown=${onKey} onClick=${(e) => follow(e.currentTarget)} onPaste=${onPaste}
      onBlur=${() => setTimeout(() => setToken(null), 150)} rows="3"
      maxlength=${state.realm.max_message_length || 10000} aria-describedby="compose-help"
      aria-autocomplete="list" aria-controls=${listOpen ? 'compose-suggestions' : undefined}
      aria-activedescendant=${listOpen ? `compose-choice-${Math.min(active, choices.length - 1)}` : undefined} />
    ${listOpen ? html`<${Popover} anchor=${() => area.current} mode="manual" role="listbox" label="Suggestions" id="compose-suggestions" className="typeahead" above=${true}>
      ${choices.map((c, i) => html`<div role="option" id=${`compose-choice-${i}`} aria-selected=${i === Math.min(active, choices.length - 1)}
        class=${i === Math.min(active, choices.length - 1) ? 'active' : ''} onMouseDown=${(e) => { e.preventDefault(); choose(c); }}>
        <span class="label">${c.label}</span> <span class="hint">${c.detail}</span></div>`)}
    <//>` : null}
    <p class="sr-only" aria-live="polite">${listOpen ? `${choices.length} suggestion${choices.length === 1 ? '' : 's'}: arrows to choose, Enter to take` : ''}</p>
    ${preview !== null ? html`<div class="preview content" aria-label="Preview" role="region" dangerouslySetInnerHTML=${{ __html: safeHtml(preview) }} />` : null}
    ${uploads.list.map((u) => html`<p class="upload-progress" role="status">Uploading ${u.name}: <progress max="1" value=${u.progress} aria-label=${`Uploading ${u.name}`}></progress> ${Math.round(u.progress * 100)} %</p>`)}
    ${shownError ? html`<p class="error" role="alert">${shownError}</p>` : null}
    <div class="compose-bar">
      <span id="compose-help" class="hint">Enter sends · Shift+Enter new line · Alt+P preview · @ # : suggest</span>
      <input type="file" ref=${fileInput} hidden multiple
        onChange=${(e) => { uploads.setError(''); uploads.upload([...e.currentTarget.files]); e.currentTarget.value = ''; }} />
      <button type="button" onClick=${() => fileInput.current.click()} title="Attach files (or drop or paste them into the box)">Attach</button>
      <button type="button" onClick=${togglePreview} aria-pressed=${preview !== null}>${preview !== null ? 'Edit' : 'Preview'}</button>
      <button type="submit" class="primary" disabled=${sending}>${sending ? 'Sending…' : 'Send'}</button>
    </div>
  </form>`;
}

function placeholder(target) {
  if (target.type === 'direct') return target.userIds.length ? `Message ${target.userIds.map(userName).join(', ')}` : 'Message';
  if (!target.streamId) return 'Choose a channel above, then write';
  const stream = state.streams.get(target.streamId);
  return `Message #${stream ? stream.name : ''}${target.topic ? ' › ' + target.topic : ''}`;
}
