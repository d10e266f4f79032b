import { render } from 'preact';
import { html } from 'htm/preact';
import { App } from './app.js';
import { applySavedScheme } from './theme.js';
import './style.css';

applySavedScheme();
// The layout's height follows the visual viewport: an on-screen keyboard shrinks it, and
// the compose box stays above the keyboard (where interactive-widget is not honoured).
if (window.visualViewport) {
  const fit = () => {
    if (window.visualViewport.scale > 1.01) return;   // zoomed in: the layout stays
    document.documentElement.style.setProperty('--app-height', `${Math.round(window.visualViewport.height)}px`);
  };
  window.visualViewport.addEventListener('resize', fit);
  fit();
}
render(html`<${App} />`, document.getElementById('app'));
