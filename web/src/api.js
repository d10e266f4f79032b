// The public API over fetch: Basic credentials in a header (never in the URL), form
// bodies, and the failure rules every caller shares: a 429 waits out Retry-After and
// says so; a 5xx or a dropped connection shows a notice and retries when the request is
// safe to repeat; anything else is an ApiError with the server's code and msg.
import { notice, clearNotice } from './notices.js';

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.msg) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.code) || (status >= 500 ? 'SERVER_ERROR' : 'BAD_REQUEST');
    this.body = body || {};
  }
}

export class NetworkError extends Error {}

const MAX_RATE_WAITS = 6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let credentials = null;
let onUnauthorized = () => {};

export function setCredentials(email, apiKey) {
  credentials = email && apiKey ? basic(email, apiKey) : null;
}

/** The Authorization header's value (for requests fetch cannot make: uploads with progress). */
export function authorization() {
  return credentials;
}

export function unauthorized(body) {
  onUnauthorized(body);
}

export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

export function basic(email, apiKey) {
  return 'Basic ' + base64(`${email}:${apiKey}`);
}

export function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function encode(params) {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value === undefined) continue;
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

/** One API call. `retry`: repeat after a 5xx or a dropped connection (safe requests);
 * `quiet`: no notice of a failure (the caller tells the person itself). */
export async function api(method, path, params, { retry = method === 'GET', signal, auth = true, quiet = false } = {}) {
  let attempt = 0;
  let rateWaits = 0;
  for (;;) {
    const query = method === 'GET' || method === 'DELETE' ? encode(params).toString() : '';
    // X-Requested-With: a refusal then carries no Basic challenge, which would open the
    // browser's own login dialog over the page.
    const headers = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
    if (auth && credentials) headers.Authorization = credentials;
    let response;
    try {
      response = await fetch(`/api/v1${path}${query ? '?' + query : ''}`, {
        method, headers, signal, cache: 'no-store',
        body: query || method === 'GET' ? undefined : encode(params),
      });
    } catch (error) {
      if (signal && signal.aborted) throw error;
      if (!retry) {
        if (!quiet) notice('connection', 'The connection to the server dropped. Nothing was lost: try again.', 'error', 8000);
        throw new NetworkError('The connection to the server dropped.');
      }
      await backoff(++attempt, 'connection', 'Connection lost');
      continue;
    }
    const body = await response.json().catch(() => null);
    if (response.ok) {
      if (attempt) clearNotice('connection');
      if (rateWaits) clearNotice('rate');
      return body;
    }
    if (response.status === 429 && rateWaits < MAX_RATE_WAITS) {
      rateWaits += 1;
      const seconds = retryAfter(response, body);
      notice('rate', `Too many requests: waiting ${Math.ceil(seconds)} s before trying again.`, 'warning');
      await sleep(seconds * 1000);
      continue;
    }
    if (response.status >= 500 && retry) {
      await backoff(++attempt, 'connection', `The server answered ${response.status}`);
      continue;
    }
    if (response.status === 401 && auth) onUnauthorized(body);
    if (response.status >= 500 && !quiet) {
      notice('connection', `The server answered ${response.status}. Nothing was lost: try again.`, 'error', 8000);
    }
    throw new ApiError(response.status, body);
  }
}

function retryAfter(response, body) {
  const header = Number(response.headers.get('Retry-After'));
  const stated = Number(body && body['retry-after']);
  const seconds = Number.isFinite(header) && header > 0 ? header : stated;
  return Math.min(Math.max(Number.isFinite(seconds) ? seconds : 1, 0.2), 120);
}

async function backoff(attempt, key, why) {
  const seconds = Math.min(2 ** Math.min(attempt - 1, 5), 30);
  notice(key, `${why}: retrying in ${seconds} s…`, 'warning');
  await sleep(seconds * 1000);
}
