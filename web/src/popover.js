// Overlays in the browser's top layer, so that no message row, scroll box or
// containment can clip or cover them: a Popover (the `popover` attribute, placed beside
// the control that opened it; a sheet at the bottom of a phone's screen) and a Dialog
// (a modal <dialog>). Both are rendered at the end of <body> (a portal) and close on Esc
// or, for a popover, a click elsewhere.
import { html } from 'htm/preact';
import { createPortal } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

const MARGIN = 8;
export const PHONE_QUERY = '(max-width: 760px)';

/** Where a box of `size` goes beside `anchor` (a DOMRect) in a viewport of `view`:
 * below it when it fits, else above, kept inside the viewport. */
export function place(anchor, size, view) {
  const below = anchor.bottom + 4;
  const above = anchor.top - 4 - size.height;
  let top = below + size.height <= view.height - MARGIN || above < MARGIN ? below : above;
  top = Math.max(MARGIN, Math.min(top, view.height - size.height - MARGIN));
  const left = Math.max(MARGIN, Math.min(anchor.left, view.width - size.width - MARGIN));
  return { top, left };
}

/**
 * A popover beside `anchor` (an element, or a function returning one). `mode`: 'auto'
 * (closes on Esc and a click elsewhere, and moves focus in) or 'manual' (a list that
 * follows typing: focus stays where it is). onClose runs once when it closes.
 */
export function Popover({ anchor, onClose, label, role = 'dialog', className = '', mode = 'auto', above = false, children, id }) {
  const ref = useRef(null);
  const closing = useRef(onClose);
  closing.current = onClose;
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el.matches(':popover-open')) el.showPopover();
    const position = () => {
      const target = typeof anchor === 'function' ? anchor() : anchor;
      if (!target || !target.getBoundingClientRect || window.matchMedia(PHONE_QUERY).matches) {
        el.style.top = ''; el.style.left = '';
        return;
      }
      const rect = target.getBoundingClientRect();
      const size = { width: el.offsetWidth, height: el.offsetHeight };
      const view = { width: document.documentElement.clientWidth, height: window.innerHeight };
      const spot = above
        ? { top: Math.max(MARGIN, rect.top - size.height - 4), left: Math.max(MARGIN, Math.min(rect.left, view.width - size.width - MARGIN)) }
        : place(rect, size, view);
      el.style.top = `${spot.top}px`;
      el.style.left = `${spot.left}px`;
    };
    position();
    const onToggle = (event) => { if (event.newState === 'closed') closing.current && closing.current(); };
    el.addEventListener('toggle', onToggle);
    window.addEventListener('resize', position);
    const observer = new ResizeObserver(position);
    observer.observe(el);
    return () => {
      el.removeEventListener('toggle', onToggle);
      window.removeEventListener('resize', position);
      observer.disconnect();
      if (el.matches(':popover-open')) el.hidePopover();
    };
  }, []);
  useEffect(() => {
    if (mode !== 'auto') return;
    const el = ref.current;
    if (!el.contains(document.activeElement)) {
      const first = el.querySelector('[autofocus], input, button, [href], [tabindex="0"]');
      if (first) first.focus();
    }
  }, []);
  return createPortal(html`<div popover=${mode} ref=${ref} id=${id} class=${`popover ${className}`}
      role=${role} aria-label=${label}>${children}</div>`, document.body);
}

/** A modal dialog: focus moves in and comes back; Esc or `onClose` closes it. */
export function Dialog({ onClose, labelledBy, className = '', children }) {
  const ref = useRef(null);
  const closing = useRef(onClose);
  closing.current = onClose;
  useLayoutEffect(() => {
    const el = ref.current;
    const opener = document.activeElement;
    el.showModal();
    const onCancel = (event) => { event.preventDefault(); closing.current(); };
    el.addEventListener('cancel', onCancel);
    return () => {
      el.removeEventListener('cancel', onCancel);
      if (el.open) el.close();
      if (opener && opener.isConnected && opener.focus) opener.focus();
    };
  }, []);
  return createPortal(html`<dialog ref=${ref} class=${`dialog ${className}`} aria-labelledby=${labelledBy}
      onClick=${(e) => { if (e.target === ref.current) closing.current(); }}>${children}</dialog>`, document.body);
}

/** Whether an overlay is open (the page's keys leave it alone). */
export function overlayOpen() {
  return !!document.querySelector('dialog[open], .popover:popover-open:not(.typeahead)');
}
