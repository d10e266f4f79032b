// One message: sender, time, the server's rendered HTML (sanitized again here), uploads
// shown, reactions, star, and the actions on it (react, edit, delete); a message taller
// than most of the window is condensed with "Show more", as the reference does.
import { html } from 'htm/preact';
import { memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Avatar } from './avatar.js';
import { EmojiPicker, emojiChar } from './emoji.js';
import { toggleReaction, rawContent, editMessage, deleteMessage, setStarred } from './messages.js';
import { channelHash, dmHash } from './narrow.js';
import { notice } from './notices.js';
import { isTall } from './reading.js';
import { safeHtml } from './sanitize.js';
import { state, userName, messageDmKey } from './store.js';
import { openUpload, showUploads } from './uploads.js';

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const expanded = new Set();   // ids of condensed messages the person opened (this page's life)

export function RecipientBar({ message }) {
  if (message.type === 'stream') {
    const stream = state.streams.get(message.stream_id);
    const topic = message.subject || state.realm.realm_empty_topic_display_name || 'general chat';
    return html`<h2 class="recipient-bar">
      <a href=${channelHash(message.stream_id)}>#${stream ? stream.name : message.display_recipient}</a>
      <span aria-hidden="true"> › </span>
      <a href=${channelHash(message.stream_id, message.subject)} title=${topic}>${topic}</a>
    </h2>`;
  }
  const others = message.display_recipient.filter((r) => r.id !== state.me).map((r) => r.full_name);
  return html`<h2 class="recipient-bar"><a href=${dmHash(messageDmKey(message))}>
    ${others.length ? `You and ${others.join(', ')}` : 'You (notes to self)'}</a></h2>`;
}

function groupReactions(reactions) {
  const groups = new Map();
  for (const r of reactions || []) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    const group = groups.get(key) || { ...r, users: [] };
    group.users.push(r.user_id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

function Content({ id, content }) {
  const ref = useRef(null);
  const [tall, setTall] = useState(false);
  const [open, setOpen] = useState(expanded.has(id));
  const measure = () => {
    const el = ref.current;
    if (el) setTall(isTall(el.scrollHeight, window.innerHeight));
  };
  useLayoutEffect(() => { measure(); showUploads(ref.current); }, [content]);
  const toggle = (event) => {
    event.stopPropagation();
    if (open) expanded.delete(id); else expanded.add(id);
    setOpen(!open);
  };
  return html`<div class=${`content${tall && !open ? ' condensed' : ''}`} id=${`content-${id}`} ref=${ref}
      onClick=${openUpload} onLoadCapture=${measure} dangerouslySetInnerHTML=${{ __html: safeHtml(content) }} />
    ${tall ? html`<button type="button" class="link show-more" aria-expanded=${open} aria-controls=${`content-${id}`}
      onClick=${toggle}>${open ? 'Show less' : 'Show more'}</button>` : null}`;
}

export const Message = memo(({ message, match, unread, starred, selected, continued, onSelect, actions }) => {
  const mine = message.sender_id === state.me;
  const editing = actions.editing === message.id;
  const content = match ? match.content : message.content;
  const anchorOf = (name) => () => document.querySelector(`#message-${message.id} .${name}`) || document.getElementById(`message-${message.id}`);
  const star = (event) => {
    event.stopPropagation();
    setStarred(message, !starred).catch((e) => notice('star', e.message, 'error', 6000));
  };
  const profile = (event) => {
    event.stopPropagation();
    actions.profile({ userId: message.sender_id, anchor: event.currentTarget });
  };
  return html`<article class=${`message${unread ? ' unread' : ''}${selected ? ' selected' : ''}${continued ? ' continued' : ''}`}
      data-id=${message.id} id=${`message-${message.id}`} tabindex=${selected ? 0 : -1}
      aria-label=${`${message.sender_full_name}, ${dateFormat.format(new Date(message.timestamp * 1000))}${unread ? ', unread' : ''}${starred ? ', starred' : ''}`}
      onFocus=${() => onSelect(message.id)} onClick=${() => onSelect(message.id)}>
    <div class="gutter">${continued ? null : html`<span class="avatar-button" onClick=${profile}><${Avatar} userId=${message.sender_id} name=${message.sender_full_name} url=${message.avatar_url} /></span>`}</div>
    <div class="body">
      ${continued ? null : html`<div class="meta">
        <button type="button" class="sender" onClick=${profile} aria-haspopup="dialog">${message.sender_full_name}</button>
        <time datetime=${new Date(message.timestamp * 1000).toISOString()}>${timeFormat.format(new Date(message.timestamp * 1000))}</time>
        ${message.last_edit_timestamp ? html`<span class="edited" title=${`Edited ${dateFormat.format(new Date(message.last_edit_timestamp * 1000))}`}>(edited)</span>` : null}
        ${starred ? html`<span class="star-mark" title="Starred" aria-hidden="true">★</span>` : null}
      </div>`}
      ${continued && message.last_edit_timestamp ? html`<span class="edited">(edited)</span>` : null}
      ${editing ? html`<${Editor} message=${message} actions=${actions} />` : html`<${Content} id=${message.id} content=${content} />`}
      ${message.reactions && message.reactions.length ? html`<div class="reactions" role="group" aria-label="Reactions">
        ${groupReactions(message.reactions).map((r) => html`<button type="button" class="reaction"
          aria-pressed=${r.users.includes(state.me)} title=${r.users.map(userName).join(', ')}
          aria-label=${`${r.emoji_name.replace(/_/g, ' ')}: ${r.users.length}`}
          onClick=${() => toggleReaction(message, { name: r.emoji_name, code: r.emoji_code }).catch((e) => notice('reaction', e.message, 'error', 6000))}>
          <span aria-hidden="true">${r.reaction_type === 'unicode_emoji' ? emojiChar(r.emoji_code) : `:${r.emoji_name}:`}</span> ${r.users.length}</button>`)}
      </div>` : null}
      <div class="actions">
        <button type="button" class="icon react-button" aria-label="React to this message" title="React (:)" aria-haspopup="dialog" onClick=${(e) => { e.stopPropagation(); actions.pick(message.id); }}>☺︎</button>
        <button type="button" class="icon star-button" aria-pressed=${starred} aria-label=${starred ? 'Unstar this message' : 'Star this message'}
          title=${starred ? 'Unstar' : 'Star'} onClick=${star}>${starred ? '★' : '☆'}</button>
        ${mine ? html`<button type="button" class="icon" aria-label="Edit this message" title="Edit (e)" onClick=${() => actions.edit(message.id)}>✎</button>
        <button type="button" class="icon" aria-label="Delete this message" title="Delete (Delete)" onClick=${() => actions.confirmDelete(message.id)}>🗑︎</button>` : null}
      </div>
      ${actions.picking === message.id ? html`<${EmojiPicker} anchor=${anchorOf('react-button')} onClose=${() => actions.pick(null)}
        onPick=${(emoji) => { actions.pick(null); toggleReaction(message, emoji).catch((e) => notice('reaction', e.message, 'error', 6000)); }} />` : null}
      ${actions.deleting === message.id ? html`<${ConfirmDelete} message=${message} actions=${actions} />` : null}
    </div>
  </article>`;
});

function Editor({ message, actions }) {
  const [text, setText] = useState(null);
  const [error, setError] = useState('');
  const area = useRef(null);
  useEffect(() => {
    rawContent(message.id).then((raw) => setText(raw)).catch((e) => setError(e.message));
  }, [message.id]);
  useEffect(() => { if (text !== null && area.current && document.activeElement !== area.current) area.current.focus(); }, [text === null]);
  const save = async () => {
    try {
      await editMessage(message.id, text);
      actions.edit(null);
    } catch (e) {
      setError(e.message);   // the edited text stays in the box
    }
  };
  const onKey = (event) => {
    if (event.key === 'Enter' && !event.shiftKey) { event.preventDefault(); save(); }
    if (event.key === 'Escape') { event.preventDefault(); event.stopPropagation(); actions.edit(null); }
  };
  return html`<div class="editor">
    <textarea ref=${area} aria-label="Edit message" value=${text ?? ''} disabled=${text === null}
      onInput=${(e) => setText(e.currentTarget.value)} onKeyDown=${onKey} />
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <button type="button" onClick=${save}>Save</button>
    <button type="button" class="link" onClick=${() => actions.edit(null)}>Cancel</button>
  </div>`;
}

function ConfirmDelete({ message, actions }) {
  const button = useRef(null);
  useEffect(() => button.current && button.current.focus(), []);
  const remove = () => {
    actions.confirmDelete(null);
    deleteMessage(message.id).catch((e) => notice('delete', `Could not delete: ${e.message}`, 'error', 8000));
  };
  return html`<div class="confirm" role="group" aria-label="Delete this message?"
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); actions.confirmDelete(null); } }}>
    Delete this message?
    <button type="button" ref=${button} class="danger" onClick=${remove}>Delete</button>
    <button type="button" class="link" onClick=${() => actions.confirmDelete(null)}>Cancel</button>
  </div>`;
}
