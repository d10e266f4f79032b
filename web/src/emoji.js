// Emoji: the common ones first (under the names the server accepts, the Unicode CLDR
// names; tests/unit/test_web_emoji.py checks each), the whole table (emoji-data.js,
// generated from the server's) loaded on first use; the picker, in the top layer.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Popover } from './popover.js';

export const EMOJI = [
  ['thumbs_up', '1f44d'], ['thumbs_down', '1f44e'], ['red_heart', '2764'], ['face_with_tears_of_joy', '1f602'],
  ['grinning_face', '1f600'], ['grinning_face_with_smiling_eyes', '1f604'], ['smiling_face_with_smiling_eyes', '1f60a'],
  ['winking_face', '1f609'], ['smiling_face_with_heart-eyes', '1f60d'], ['thinking_face', '1f914'],
  ['face_with_open_mouth', '1f62e'], ['crying_face', '1f622'], ['enraged_face', '1f621'], ['party_popper', '1f389'],
  ['folded_hands', '1f64f'], ['clapping_hands', '1f44f'], ['raising_hands', '1f64c'], ['eyes', '1f440'],
  ['fire', '1f525'], ['rocket', '1f680'], ['check_mark_button', '2705'], ['cross_mark', '274c'], ['star', '2b50'],
  ['hundred_points', '1f4af'], ['waving_hand', '1f44b'], ['handshake', '1f91d'], ['light_bulb', '1f4a1'],
  ['warning', '26a0'], ['bug', '1f41b'], ['hot_beverage', '2615'], ['pizza', '1f355'], ['birthday_cake', '1f382'],
  ['smiling_face_with_sunglasses', '1f60e'], ['person_shrugging', '1f937'], ['slightly_smiling_face', '1f642'],
  ['grinning_face_with_sweat', '1f605'], ['grimacing_face', '1f62c'], ['partying_face', '1f973'],
  ['flexed_biceps', '1f4aa'], ['sparkles', '2728'], ['pushpin', '1f4cc'], ['paperclip', '1f4ce'], ['wrench', '1f527'],
  ['test_tube', '1f9ea'], ['chart_increasing', '1f4c8'], ['glowing_star', '1f31f'], ['see-no-evil_monkey', '1f648'],
].map(([name, code]) => ({ name, code }));

export function emojiChar(code) {
  try {
    return String.fromCodePoint(...code.split('-').map((hex) => parseInt(hex, 16)));
  } catch (error) {
    return '?';
  }
}


let table = null;
let loading = null;

/** The whole table, [{name, code, char, aliases}], loaded once (a separate file). */
export function loadEmoji() {
  if (table) return Promise.resolve(table);
  if (!loading) {
    loading = import('./emoji-data.js').then((module) => {
      table = parseTable(module.default);
      return table;
    });
  }
  return loading;
}

/** The table if loaded, else the common ones (and it starts loading). */
export function emojiNow() {
  if (!table) loadEmoji();
  return table || EMOJI.map((e) => ({ ...e, char: emojiChar(e.code), aliases: [] }));
}

export function parseTable(text) {
  return text.split('|').map((entry) => {
    const [code, name, ...aliases] = entry.split(' ');
    return { code, name, aliases, char: emojiChar(code) };
  });
}

/** Emoji whose name or an alias contains the words typed, common ones first. */
export function findEmoji(query, list = emojiNow()) {
  const q = query.toLowerCase().trim().replace(/\s+/g, '_');
  const common = new Map(EMOJI.map((e, i) => [e.name, i]));
  if (!q) return EMOJI.map((e) => list.find((x) => x.name === e.name) || { ...e, char: emojiChar(e.code), aliases: [] });
  const out = [];
  for (const e of list) {
    const names = [e.name, ...e.aliases];
    const r = names.some((n) => n.startsWith(q)) ? 0 : names.some((n) => n.includes(`_${q}`)) ? 1 : names.some((n) => n.includes(q)) ? 2 : -1;
    if (r >= 0) out.push([r, common.has(e.name) ? common.get(e.name) : 1000, e]);
  }
  out.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2].name.localeCompare(b[2].name));
  return out.slice(0, 120).map((x) => x[2]);
}

const COLUMNS = 8;

/** The picker: type to filter, arrows to move, Enter to pick, Esc to close. In the top
 * layer, beside `anchor` (the control that opened it). */
export function EmojiPicker({ onPick, onClose, anchor, label = 'Add a reaction' }) {
  const [filter, setFilter] = useState('');
  const [active, setActive] = useState(0);
  const [, loaded] = useState(!!table);
  const input = useRef(null);
  useEffect(() => { if (!table) loadEmoji().then(() => loaded(true)); }, []);
  const shown = findEmoji(filter);
  useEffect(() => setActive(0), [filter]);
  useEffect(() => {
    const el = document.getElementById(shown[active] ? `emoji-${shown[active].name}` : '');
    if (el && el.scrollIntoView) el.scrollIntoView({ block: 'nearest' });
  }, [active]);
  const onKey = (event) => {
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: COLUMNS, ArrowUp: -COLUMNS };
    if (event.key in moves) {
      event.preventDefault();
      setActive((n) => Math.min(Math.max(n + moves[event.key], 0), shown.length - 1));
    } else if (event.key === 'Enter' && shown[active]) {
      event.preventDefault();
      onPick(shown[active]);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      onClose();
    }
  };
  return html`<${Popover} anchor=${anchor} onClose=${onClose} label=${label} className="emoji-picker">
    <div onKeyDown=${onKey}>
      <input ref=${input} type="search" placeholder="Find an emoji" aria-label="Find an emoji" value=${filter} autofocus
        aria-activedescendant=${shown[active] ? `emoji-${shown[active].name}` : undefined}
        aria-controls="emoji-grid" onInput=${(e) => setFilter(e.currentTarget.value)} />
      <div class="emoji-grid" id="emoji-grid" role="listbox" aria-label="Emoji">
        ${shown.map((e, i) => html`<button type="button" role="option" id=${`emoji-${e.name}`} tabindex="-1"
          class=${i === active ? 'active' : ''} aria-selected=${i === active} title=${e.name.replace(/_/g, ' ')}
          aria-label=${e.name.replace(/_/g, ' ')} onClick=${() => onPick(e)}>${e.char}</button>`)}
      </div>
      ${shown.length ? null : html`<p class="hint">No emoji by that name.</p>`}
      <button type="button" class="link" onClick=${onClose}>Close</button>
    </div>
  <//>`;
}
