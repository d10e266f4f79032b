import { render } from 'preact';
import { html } from 'htm/preact';
import { App } from './app.js';
import './style.css';

render(html`<${App} />`, document.getElementById('app'));
