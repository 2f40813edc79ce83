// The dashboard's only way to the sandbox: the control API (JSON) and its event stream.
// The admin token lives in sessionStorage and travels only as `Authorization: Bearer …`.

const TOKEN_KEY = 'ramp-sandbox.admin-token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An error answer of the API: `message` is the API's own message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const authListeners = new Set();
/** Called when the API answers 401: the page asks for the token again. */
export const onUnauthorized = (fn) => {
  authListeners.add(fn);
  return () => authListeners.delete(fn);
};

function headers(extra = {}) {
  const t = token.get();
  return t ? { ...extra, authorization: `Bearer ${t}` } : extra;
}

/** Calls the control API; resolves with the whole envelope (`data`, `meta`), throws ApiError. */
export async function call(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  let res;
  try {
    res = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, 'E_NETWORK', `The sandbox did not answer (${error.message})`);
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok || !json || json.status !== true) {
    if (res.status === 401) for (const fn of authListeners) fn();
    throw new ApiError(res.status, json?.code ?? `HTTP ${res.status}`, json?.message ?? (text.slice(0, 200) || res.statusText));
  }
  return json;
}

export const get = (path) => call('GET', path).then((r) => r.data);
export const post = (path, body = {}) => call('POST', path, body).then((r) => r.data);
export const patch = (path, body) => call('PATCH', path, body).then((r) => r.data);
export const del = (path) => call('DELETE', path).then((r) => r.data);

/** Query string of the set values of `params`. */
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

// ---- live: GET /sandbox/events ------------------------------------------------------------
// EventSource cannot send a header, so the stream is read with fetch() and parsed here.

const liveListeners = new Set();
const stateListeners = new Set();
let liveState = 'connecting';

/** Subscribes to live events `{event, data}`; returns the unsubscribe. */
export function onLive(fn) {
  liveListeners.add(fn);
  return () => liveListeners.delete(fn);
}

/** Subscribes to the connection state: connecting, live, offline. */
export function onLiveState(fn) {
  stateListeners.add(fn);
  fn(liveState);
  return () => stateListeners.delete(fn);
}

function setState(s) {
  liveState = s;
  for (const fn of stateListeners) fn(s);
}

let controller;

/** Opens the stream, and reopens it whenever it ends, until `stopLive()`. */
export async function startLive() {
  stopLive();
  const mine = (controller = new AbortController());
  let delay = 1000;
  while (!mine.signal.aborted) {
    setState('connecting');
    try {
      const res = await fetch('/sandbox/events', { headers: headers({ accept: 'text/event-stream' }), signal: mine.signal });
      if (res.status === 401) {
        for (const fn of authListeners) fn();
        setState('offline');
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      setState('live');
      delay = 1000;
      // A reconnect may have missed changes: everything is refetched.
      emit({ event: 'reconnect', data: {} });
      await readStream(res.body);
    } catch {
      if (mine.signal.aborted) return;
    }
    setState('offline');
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 10_000);
  }
}

export function stopLive() {
  controller?.abort();
  controller = undefined;
}

async function readStream(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (!data) continue;
      try {
        emit({ event, data: JSON.parse(data) });
      } catch {
        // not JSON: ignore
      }
    }
  }
}

function emit(message) {
  for (const fn of liveListeners) fn(message);
}
