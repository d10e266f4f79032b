// Non-blocking notices (connection trouble, rate limits, errors), shown in a live region.
import { signal } from './signal.js';

export const notices = signal([]);
const timers = new Map();

export function notice(key, text, kind = 'info', clearAfterMs = 0) {
  const others = notices.value.filter((n) => n.key !== key);
  notices.value = [...others, { key, text, kind }];
  clearTimeout(timers.get(key));
  if (clearAfterMs) timers.set(key, setTimeout(() => clearNotice(key), clearAfterMs));
}

export function clearNotice(key) {
  clearTimeout(timers.get(key));
  if (notices.value.some((n) => n.key === key)) {
    notices.value = notices.value.filter((n) => n.key !== key);
  }
}
