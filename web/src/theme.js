// Light and dark: the `color_scheme` setting (1 automatic, following the system's
// preference; 2 dark; 3 light), kept on this device too so that the next page load
// (the login page included) starts in it.
const KEY = 'teamchat.theme';
export const SCHEMES = [[1, 'Automatic (as the system)'], [2, 'Dark'], [3, 'Light']];

export function applyScheme(scheme) {
  const theme = scheme === 2 ? 'dark' : scheme === 3 ? 'light' : '';
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
  try { localStorage.setItem(KEY, String(scheme || 1)); } catch { /* storage refused: this load only */ }
}

/** The scheme this device last showed (before the settings arrive). */
export function applySavedScheme() {
  let saved = 1;
  try { saved = Number(localStorage.getItem(KEY)) || 1; } catch { /* none */ }
  applyScheme(saved);
}
