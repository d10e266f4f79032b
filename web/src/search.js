// The search box: the narrow language with suggestions as you type (a combobox).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { loadTopics } from './messages.js';
import { searchHash, suggest } from './narrow.js';
import { state } from './store.js';

function topicsOf(channelName) {
  const streams = [...state.subs.values()].filter((s) => !channelName || s.name.toLowerCase() === String(channelName).toLowerCase());
  const names = [];
  for (const s of streams) {
    if (!state.topics.has(s.stream_id)) loadTopics(s.stream_id);
    for (const t of state.topics.get(s.stream_id) || []) names.push(t.name);
  }
  return [...new Set(names)];
}

export function SearchBox({ inputRef, initial }) {
  const [text, setText] = useState(initial || '');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const suggestions = open ? suggest(text, topicsOf) : [];

  const go = (query) => {
    const q = query.trim();
    setOpen(false);
    if (q) window.location.hash = searchHash(q);
  };
  const onKey = (event) => {
    if (event.key === 'ArrowDown') { event.preventDefault(); setOpen(true); setActive((n) => Math.min(n + 1, suggestions.length - 1)); }
    else if (event.key === 'ArrowUp') { event.preventDefault(); setActive((n) => Math.max(n - 1, -1)); }
    else if (event.key === 'Tab' && open && suggestions[Math.max(active, 0)] && text.trim()) {
      const chosen = suggestions[Math.max(active, 0)];
      if (chosen.text !== text) { event.preventDefault(); setText(chosen.text); setActive(-1); }
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const chosen = suggestions[active];
      if (chosen && chosen.text.endsWith(':')) { setText(chosen.text); setActive(-1); return; }
      go(chosen ? chosen.text : text);
      event.currentTarget.blur();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      if (open && suggestions.length) setOpen(false); else event.currentTarget.blur();
    }
  };
  return html`<form class="search" role="search" onSubmit=${(e) => { e.preventDefault(); go(text); }}>
    <input ref=${inputRef} type="text" role="combobox" aria-label="Search messages" aria-autocomplete="list"
      aria-expanded=${suggestions.length > 0} aria-controls="search-suggestions"
      aria-activedescendant=${active >= 0 && suggestions[active] ? `suggestion-${active}` : undefined}
      placeholder="Search (channel:, topic:, sender:, has:, is:, words)  /" value=${text}
      onInput=${(e) => { setText(e.currentTarget.value); setOpen(true); setActive(-1); }}
      onFocus=${() => setOpen(true)} onBlur=${() => setTimeout(() => setOpen(false), 150)} onKeyDown=${onKey} />
    <ul id="search-suggestions" role="listbox" aria-label="Suggestions" class=${suggestions.length ? 'suggestions' : 'suggestions empty'}>
      ${suggestions.map((s, i) => html`<li id=${`suggestion-${i}`} role="option" aria-selected=${i === active}
        class=${i === active ? 'active' : ''} onMouseDown=${(e) => { e.preventDefault(); if (s.text.endsWith(':')) setText(s.text); else go(s.text); }}>
        <span class="label">${s.label}</span> <code>${s.text.trim()}</code></li>`)}
    </ul>
  </form>`;
}
