// The emoji picker: a small set of common emoji under the names the server accepts
// (the Unicode CLDR names; tests/unit/test_web_emoji.py checks each against the server).
import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

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

const COLUMNS = 8;

/** A dialog of emoji buttons: type to filter, arrows to move, Enter to pick, Esc to close. */
export function EmojiPicker({ onPick, onClose, label = 'Add a reaction' }) {
  const [filter, setFilter] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef(null);
  const shown = EMOJI.filter((e) => e.name.includes(filter.toLowerCase().replace(/\s+/g, '_')));
  useLayoutEffect(() => { input.current && input.current.focus(); }, []);
  useEffect(() => setActive(0), [filter]);
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
  return html`<div class="emoji-picker" role="dialog" aria-label=${label} onKeyDown=${onKey}>
    <input ref=${input} type="search" placeholder="Find an emoji" aria-label="Find an emoji" value=${filter}
      aria-activedescendant=${shown[active] ? `emoji-${shown[active].name}` : undefined}
      aria-controls="emoji-grid"
      onInput=${(e) => setFilter(e.currentTarget.value)} />
    <div class="emoji-grid" id="emoji-grid" role="listbox" aria-label="Emoji">
      ${shown.map((e, i) => html`<button type="button" role="option" id=${`emoji-${e.name}`} tabindex="-1"
        class=${i === active ? 'active' : ''} aria-selected=${i === active} title=${e.name.replace(/_/g, ' ')}
        aria-label=${e.name.replace(/_/g, ' ')} onClick=${() => onPick(e)}>${emojiChar(e.code)}</button>`)}
    </div>
    <button type="button" class="link" onClick=${onClose}>Close</button>
  </div>`;
}
