// The keyboard: the page's keys (outside text boxes) and the list of them (`?`).
import { html } from 'htm/preact';
import { useRef } from 'preact/hooks';
import { Dialog } from './popover.js';

export const KEYS = [
  ['/', 'Search'], ['i', 'Inbox'], [',', 'Settings'], ['c', 'Write a message (focus the compose box)'],
  ['j or ↓', 'Next message'], ['k or ↑', 'Previous message'], ['Home / End', 'First / last message shown'],
  ['r or Enter', 'Reply to the selected message'], ['e', 'Edit the selected message (yours)'],
  [': or +', 'React to the selected message'], ['*', 'Star or unstar the selected message'],
  ['Delete', 'Delete the selected message (yours)'],
  ['Shift+R', 'Mark everything in this view as read'], ['Enter (in compose)', 'Send'],
  ['Shift+Enter', 'New line'], ['Alt+P', 'Preview the message'], ['@ # :', 'Suggest people, channels and topics, emoji (in compose)'],
  ['Esc', 'Close, or leave a text box'], ['?', 'This list'],
];

export function KeyboardHelp({ onClose }) {
  const close = useRef(null);
  return html`<${Dialog} onClose=${onClose} labelledBy="keys-title">
    <div class="dialog-body" onKeyDown=${(e) => { if (e.key === '?') { e.preventDefault(); e.stopPropagation(); onClose(); } }}>
      <h2 id="keys-title">Keyboard shortcuts</h2>
      <table><tbody>${KEYS.map(([key, what]) => html`<tr><th scope="row"><kbd>${key}</kbd></th><td>${what}</td></tr>`)}</tbody></table>
      <button type="button" ref=${close} autofocus onClick=${onClose}>Close</button>
    </div>
  <//>`;
}
