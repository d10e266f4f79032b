// The event queue: POST /register, then events over the push channel (WebSocket, with
// the credentials as a subprotocol so the key never goes in a URL), long-poll as the
// fallback; resumes from the last event id after a drop.
//
// Recovery: when the socket drops, one non-blocking poll of the queue tells what
// happened. The server answered: the socket reconnects (three failed handshakes in a row
// while the API answers means something refuses WebSockets: long-poll, and try the push
// channel again every 5 minutes). The server did not answer (it restarted, the network
// changed, the computer slept): once it answers again the client registers afresh,
// which re-reads the push channel's address (a restarted stack may serve it elsewhere)
// and reloads the open views; so does an expired queue (BAD_EVENT_QUEUE_ID). Retries come
// every 0.5 to 4 s, so the page is live again within seconds of the server.
import { api, ApiError, base64 } from './api.js';
import { notice, clearNotice } from './notices.js';
import { state, changed } from './store.js';

const CAPABILITIES = {
  notification_settings_null: true, bulk_message_deletion: true,
  user_avatar_url_field_optional: false, stream_typing_notifications: true,
  user_settings_object: true, teamchat_websocket: true,
};
const SUBPROTOCOL = 'teamchat.v1';
const LONGPOLL_TIMEOUT_MS = 90_000;
const SILENCE_MS = 6 * 60_000;     // heartbeats come at least every 5 minutes
const SLEEP_GAP_MS = 30_000;       // a timer late by this much: the computer slept
const UPGRADE_MS = 5 * 60_000;     // from long-poll, the push channel is tried this often
const MAX_RETRY_MS = 4000;

/** The wait before the n-th retry (1, 2, …): 0.5, 1, 2, 4, 4… s, with some jitter. */
export function retryDelay(n) {
  const base = Math.min(500 * 2 ** Math.max(n - 1, 0), MAX_RETRY_MS);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export class EventChannel {
  constructor({ email, apiKey, onRegistered, onEvents }) {
    this.email = email;
    this.apiKey = apiKey;
    this.onRegistered = onRegistered;
    this.onEvents = onEvents;
    this.queueId = null;
    this.lastEventId = -1;
    this.socket = null;
    this.stopped = false;
    this.failures = 0;        // retries since the connection was last good
    this.refusals = 0;        // failed handshakes in a row while the API answered
    this.outage = false;      // the server stopped answering since the last registration
    this.mode = 'websocket';
    this.generation = 0;
  }

  async start() {
    await this.register();
    this.watchdog = setInterval(() => this.checkAlive(), 10_000);
    this.lastTick = Date.now();
    this.onOnline = () => { this.outage = true; this.reconnect('back online'); };
    window.addEventListener('online', this.onOnline);
  }

  stop() {
    this.stopped = true;
    clearInterval(this.watchdog);
    window.removeEventListener('online', this.onOnline);
    this.closeSocket();
    if (this.poll) this.poll.abort();
    if (this.queueId) api('DELETE', '/events', { queue_id: this.queueId }).catch(() => {});
  }

  async register({ retry = true } = {}) {
    this.generation += 1;
    this.closeSocket();
    const data = await api('POST', '/register', {
      apply_markdown: true, slim_presence: true, client_capabilities: CAPABILITIES,
      include_subscribers: false,
    }, { retry, quiet: !retry });
    const old = this.queueId;
    this.queueId = data.queue_id;
    this.lastEventId = data.last_event_id;
    this.url = data.event_queue_websocket_url;
    this.mode = this.url && typeof WebSocket !== 'undefined' ? 'websocket' : 'longpoll';
    this.outage = false;
    this.failures = 0;
    this.refusals = 0;
    if (old && old !== data.queue_id) api('DELETE', '/events', { queue_id: old }, { retry: false }).catch(() => {});
    this.onRegistered(data);
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    if (this.mode === 'websocket') this.openSocket();
    else this.longPoll();
  }

  setConnection(value) {
    if (state.connection !== value) { state.connection = value; changed(); }
  }

  openSocket() {
    const generation = this.generation;
    const credentials = base64(`${this.email}:${this.apiKey}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const url = `${this.url}?queue_id=${encodeURIComponent(this.queueId)}&last_event_id=${this.lastEventId}`;
    let opened = false;
    let socket;
    try {
      socket = new WebSocket(url, [SUBPROTOCOL, `teamchat.basic.${credentials}`]);
    } catch (error) {
      // An address the page may not connect to (its policy): as a refused handshake.
      this.refusals += 1;
      this.dropped();
      return;
    }
    this.socket = socket;
    this.heard = Date.now();
    socket.onopen = () => {
      opened = true;
      this.failures = 0;
      this.refusals = 0;
      clearNotice('events');
      this.setConnection('websocket');
      this.fetchMissed();
    };
    socket.onmessage = (message) => {
      this.heard = Date.now();
      const data = JSON.parse(message.data);
      if (data.type === 'events') this.apply(data.events);
      else if (data.type === 'error') this.handleError(new ApiError(400, data));
    };
    socket.onclose = () => {
      if (this.socket !== socket || this.stopped || generation !== this.generation) return;
      this.socket = null;
      if (!opened) this.refusals += 1;
      this.dropped();
    };
  }

  /** The socket closed (or never opened): ask the queue what happened, soon. */
  dropped() {
    this.failures += 1;
    this.setConnection('reconnecting');
    this.checkQueue();
  }

  fetchMissed() {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify({ op: 'get_events', last_event_id: this.lastEventId }));
    }
  }

  closeSocket() {
    const socket = this.socket;
    this.socket = null;
    if (socket) { socket.onclose = null; socket.close(); }
  }

  /** One non-blocking poll of the queue after a wait; then reconnect, register afresh,
   * or (the server not answering) try again. */
  async checkQueue() {
    const generation = this.generation;
    const delay = retryDelay(this.failures);
    if (this.failures > 2) notice('events', `Connection lost: reconnecting in ${Math.max(1, Math.round(delay / 1000))} s…`, 'warning');
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (this.stopped || generation !== this.generation) return;
    let data;
    try {
      data = await api('GET', '/events', { queue_id: this.queueId, last_event_id: this.lastEventId, dont_block: true }, { retry: false, quiet: true });
    } catch (error) {
      this.handleError(error);
      return;
    }
    if (this.stopped || generation !== this.generation) return;
    if (this.outage) {
      // Back after an outage: the push channel may live elsewhere now. Register afresh.
      this.apply(data.events);
      this.reregister();
      return;
    }
    this.apply(data.events);
    if (this.mode === 'websocket' && this.refusals >= 3) {
      this.mode = 'longpoll';   // the API answers, the push channel does not
      this.lastUpgrade = Date.now();
    }
    this.connect();
  }

  reregister() {
    const generation = this.generation;
    this.register({ retry: false }).then(() => {
      clearNotice('events');
    }).catch((error) => {
      if (this.stopped || generation + 1 < this.generation) return;
      this.handleError(error);
    });
  }

  async longPoll() {
    const generation = this.generation;
    this.setConnection('longpoll');
    while (!this.stopped && generation === this.generation && this.mode === 'longpoll') {
      this.poll = new AbortController();
      const timer = setTimeout(() => this.poll.abort(), LONGPOLL_TIMEOUT_MS);
      try {
        const data = await api('GET', '/events', { queue_id: this.queueId, last_event_id: this.lastEventId },
          { retry: false, quiet: true, signal: this.poll.signal });
        this.failures = 0;
        clearNotice('events');
        this.setConnection('longpoll');
        this.heard = Date.now();
        this.apply(data.events);
      } catch (error) {
        if (this.poll.signal.aborted && !this.stopped) continue;   // our own timeout
        clearTimeout(timer);
        this.failures += 1;
        this.handleError(error);
        return;
      } finally {
        clearTimeout(timer);
      }
    }
  }

  handleError(error) {
    if (this.stopped) return;
    if (error instanceof ApiError && error.code === 'BAD_EVENT_QUEUE_ID') {
      notice('requeue', 'The event queue expired: loaded again, nothing missed.', 'info', 6000);
      this.generation += 1;
      this.reregister();
      return;
    }
    if (error instanceof ApiError && error.status === 401) return;
    // No answer, or the server failing: an outage; what comes back is registered afresh.
    if (!(error instanceof ApiError) || error.status >= 500) this.outage = true;
    this.setConnection('reconnecting');
    this.failures = Math.max(this.failures + 1, 1);
    this.checkQueue();
  }

  apply(events) {
    const fresh = [];
    for (const event of events) {
      if (event.id <= this.lastEventId) continue;
      if (event.id > this.lastEventId + 1 && this.socket) {
        this.fetchMissed();   // a push overtook another: ask the queue for the gap
        break;
      }
      fresh.push(event);
      this.lastEventId = event.id;
    }
    if (fresh.length) this.onEvents(fresh);
  }

  reconnect(why) {
    if (this.stopped || !this.queueId) return;
    notice('events', `Reconnecting (${why})…`, 'info', 4000);
    this.generation += 1;
    this.closeSocket();
    if (this.poll) this.poll.abort();
    if (this.url) this.mode = 'websocket';
    this.failures = 0;
    this.checkQueue();
  }

  checkAlive() {
    const now = Date.now();
    const slept = now - this.lastTick > SLEEP_GAP_MS;
    this.lastTick = now;
    if (slept) { this.outage = true; this.reconnect('after sleep'); }
    else if (this.mode === 'websocket' && this.socket && now - this.heard > SILENCE_MS) this.reconnect('no heartbeat');
    else if (this.mode === 'longpoll' && this.url && this.failures === 0 && now - (this.lastUpgrade || 0) > UPGRADE_MS) {
      this.lastUpgrade = now;   // try the push channel again now and then
      this.refusals = 0;
      this.reconnect('push channel');
    }
  }
}
