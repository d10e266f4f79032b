// Avatars: a person's initials on a colour of their own (derived from their id, so every
// client shows the same one), or the picture the server generated for them (their
// organization's default_avatar_source "J"). No image is fetched from outside the
// organization: a Gravatar URL is never loaded.
import { html } from 'htm/preact';

const COLOURS = ['#1e6f5c', '#2d5d9f', '#8c3b9e', '#a3472b', '#6b6f1d', '#37617a', '#9c2f56', '#4a5a2b', '#5b4ba6', '#8a5300'];

export function initials(name) {
  const words = String(name || '?').trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? words[0][0] + words[words.length - 1][0] : (words[0] || '?').slice(0, 2);
  return letters.toUpperCase();
}

export function colourOf(userId) {
  return COLOURS[Math.abs(Number(userId) || 0) % COLOURS.length];
}

// The server's own generated pictures (/user_avatars/{realm}/generated/{digest}.svg).
export function generatedPicture(url) {
  return typeof url === 'string' && /^\/user_avatars\/\d+\/generated\/[0-9a-f]{32}(-medium)?\.svg(\?|$)/.test(url)
    ? url : null;
}

export function Avatar({ userId, name, size = 36, url }) {
  const picture = generatedPicture(url);
  if (picture) {
    return html`<img class="avatar" src=${picture} alt="" aria-hidden="true" width=${size} height=${size}
      style=${{ width: `${size}px`, height: `${size}px` }} />`;
  }
  return html`<span class="avatar" aria-hidden="true"
    style=${{ background: colourOf(userId), width: `${size}px`, height: `${size}px`, fontSize: `${Math.round(size * 0.4)}px` }}>${initials(name)}</span>`;
}
