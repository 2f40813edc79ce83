// Shared pieces of the dashboard: the htm binding, data hooks and small components.
import { h } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';
import { get, onLive } from './api.js';

export const html = htm.bind(h);

/**
 * Fetches `path` and refetches it when a live event of one of `kinds` arrives (and `matches`
 * says it concerns this view). Refetches are never concurrent: one in flight, at most one queued.
 */
export function useResource(path, kinds = [], matches = () => true) {
  const [state, setState] = useState({ data: undefined, error: undefined, loading: true });
  const busy = useRef(false);
  const again = useRef(false);
  const current = useRef(path);
  current.current = path;
  const matchRef = useRef(matches);
  matchRef.current = matches;

  const load = useCallback(async () => {
    if (!current.current) return;
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    const asked = current.current;
    try {
      const data = await get(asked);
      if (asked === current.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (asked === current.current) setState((s) => ({ data: s.data, error, loading: false }));
    } finally {
      busy.current = false;
      if (again.current) {
        again.current = false;
        load();
      }
    }
  }, []);

  useEffect(() => {
    setState((s) => ({ ...s, loading: true }));
    load();
  }, [path]);
  useEffect(
    () =>
      onLive(({ event, data }) => {
        if (event === 'reconnect' || (kinds.includes(event) && matchRef.current(event, data))) load();
      }),
    [kinds.join(',')],
  );
  return { ...state, reload: load };
}

/** A number that grows with each live event of `kinds` (and each reconnect): a dependency to refetch on. */
export function useLiveVersion(kinds, matches = () => true) {
  const [version, setVersion] = useState(0);
  const matchRef = useRef(matches);
  matchRef.current = matches;
  useEffect(
    () =>
      onLive(({ event, data }) => {
        if (event === 'reconnect' || (kinds.includes(event) && matchRef.current(event, data))) setVersion((v) => v + 1);
      }),
    [kinds.join(',')],
  );
  return version;
}

/** Runs an API action: `busy` while it runs, `error` with the API's message when it fails. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(undefined);
  const [done, setDone] = useState(undefined);
  const run = useCallback(async (label, fn) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      const result = await fn();
      setDone(label);
      return result;
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, done, run, clear: () => setError(undefined) };
}

/** The API's error message, shown where the action was taken. */
export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="error" role="alert"><strong>${error.code ?? 'Error'}${error.status ? ` (${error.status})` : ''}</strong> ${error.message}</div>`;
}

export function Status({ status }) {
  return html`<span class=${`status st-${status}`}>${status}</span>`;
}

/** A virtual (or wall) ISO time, shortened to what changes: date and time to the second. */
export function Time({ iso }) {
  if (!iso) return html`<span class="muted">-</span>`;
  return html`<time datetime=${iso} title=${iso}>${iso.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z')}</time>`;
}

export function Json({ value }) {
  return html`<pre class="json">${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>`;
}

export function Section({ title, actions, children, id }) {
  return html`<section class="panel" id=${id}>
    <header class="panel-head"><h2>${title}</h2>${actions ? html`<div class="panel-actions">${actions}</div>` : null}</header>
    ${children}
  </section>`;
}

/** Rows of label → value. */
export function KeyValue({ rows }) {
  return html`<dl class="kv">${rows.filter(Boolean).map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? html`<span class="muted">-</span>`}</dd>`)}</dl>`;
}

/** A select of `options` (strings or [value, label]) with an "any" entry when `any` is given. */
export function Select({ value, onChange, options, any, label, name }) {
  return html`<label class="field"><span>${label}</span>
    <select name=${name} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      ${any !== undefined ? html`<option value="">${any}</option>` : null}
      ${options.map((o) => (Array.isArray(o) ? html`<option value=${o[0]}>${o[1]}</option>` : html`<option value=${o}>${o}</option>`))}
    </select>
  </label>`;
}

export function Input({ value, onInput, label, name, type = 'text', placeholder, size, step }) {
  return html`<label class="field"><span>${label}</span>
    <input name=${name} type=${type} value=${value} placeholder=${placeholder} size=${size} step=${step} onInput=${(e) => onInput(e.currentTarget.value)} />
  </label>`;
}

export function Empty({ children }) {
  return html`<p class="empty">${children}</p>`;
}

/** `12,345.67 NGN`. */
export function money(amount, currency) {
  if (amount === undefined || amount === null) return '-';
  return `${Number(amount).toLocaleString('en-US', { maximumFractionDigits: 8 })} ${currency ?? ''}`.trim();
}

/** Links within the page are hashes: `#/orders/REF`. */
export const link = (...parts) => `#/${parts.map(encodeURIComponent).join('/')}`;
