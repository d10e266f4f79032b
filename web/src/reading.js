// Reading position and read state as geometry, without the DOM: which messages the
// person has seen, where a narrow opens, whether the view follows new messages, and
// which messages are too tall to show whole. The message list measures; these decide.

/** Of a message this much of the view (or of itself, when shorter) must be in sight. */
export const SEEN_SHARE = 0.5;
/** The view follows new messages when its bottom is this close to the list's end. */
export const STICK_PX = 4;
/** Messages taller than this share of the window are condensed ("Show more"), as the
 * reference condenses them. */
export const CONDENSE_SHARE = 0.65;

/**
 * The messages seen in one look at the list.
 * rows: [{id, top, bottom}] of the unread messages in the page, relative to the view's top
 * (px); viewHeight: the view's height; looked: what the previous looks saw (a Map kept
 * across calls, changed here).
 * A message is seen when enough of it is in sight: half of it, or, when it is taller
 * than the view, half of the view's height; or when it is now above the view and was not
 * at the previous look (scrolled past, however fast). A message that appears above the
 * view (an older page coming in) has not been scrolled past. Returns the ids seen now.
 */
export function seenRows(rows, viewHeight, looked) {
  const seen = [];
  for (const row of rows) {
    const height = Math.max(row.bottom - row.top, 1);
    const visible = Math.min(row.bottom, viewHeight) - Math.max(row.top, 0);
    const before = looked.get(row.id);
    if (visible > 0 && visible >= SEEN_SHARE * Math.min(height, viewHeight)) seen.push(row.id);
    else if (row.bottom <= 0 && before !== undefined && before > 0) seen.push(row.id);
    else looked.set(row.id, row.bottom);
  }
  for (const id of seen) looked.delete(id);
  if (looked.size > 2000) looked.clear();   // rows long gone from the page
  return seen;
}

/**
 * Where a narrow opens: at its first unread message, shown near the top of the view with
 * a little of what came before, or at the bottom when nothing is unread.
 * Returns {stick: true} or {anchorId, offset} (the anchor's top at `offset` px).
 */
export function landing(firstUnreadId, viewHeight) {
  if (firstUnreadId === null || firstUnreadId === undefined) return { stick: true };
  return { anchorId: firstUnreadId, offset: Math.min(80, Math.round(viewHeight / 4)) };
}

/** Whether the view is at the list's end (and so follows what arrives). */
export function atBottom(scrollTop, scrollHeight, clientHeight) {
  return scrollHeight - scrollTop - clientHeight < STICK_PX;
}

/** The scrollTop that puts an element whose top is at `elementTop` (in the list's
 * content) at `offset` px from the view's top. */
export function scrollFor(elementTop, offset) {
  return Math.max(0, elementTop - offset);
}

/** Whether content this tall is condensed in a window this tall. */
export function isTall(contentHeight, windowHeight) {
  return contentHeight > CONDENSE_SHARE * windowHeight;
}
