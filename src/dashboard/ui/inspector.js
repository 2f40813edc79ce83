// The request inspector (CONTRACT §11), with the signature hint beside a failed request, and
// fault injection on /v1 (CONTRACT §12).
import { useState } from 'preact/hooks';
import { ApiError, del, post, qs, token } from './api.js';
import { hashOf, useListParams } from './router.js';
import {
  Copyable,
  Empty,
  EmptyList,
  ErrorBox,
  faultEffects,
  faultsChanged,
  FaultWhen,
  html,
  Input,
  Json,
  link,
  Pager,
  Section,
  Select,
  Time,
  useAction,
  useFaults,
  usePaged,
  useResource,
} from './ui.js';
/** @import { Resource } from './ui.js' */
/** @import { FaultBody, Paged, RecordedRequest } from './types' */

export function InspectorScreen() {
  return html`<div class="screen"><h1>Requests & faults</h1><${Faults} /><${Requests} /></div>`;
}

/** One recorded request: `#/requests/req_…`. @param {{ id: string }} props */
export function RequestScreen({ id }) {
  /** @type {Resource<RecordedRequest>} */
  const entry = useResource(`/sandbox/requests/${encodeURIComponent(id)}`);
  const r = entry.data;
  return html`<div class="screen" data-testid="request" data-request=${id}>
    <div class="crumbs"><a href=${hashOf('requests')}>← Requests & faults</a></div>
    <div class="order-head"><h1 class="mono">${id}</h1>${r ? html`<span class=${`code c${String(r.status)[0]}`}>${r.status}</span>` : null}</div>
    ${
      !r
        ? entry.error
          ? html`<${ErrorBox} error=${entry.error} />`
          : html`<p class="loading">Loading ${id}…</p>`
        : html`
      <${Section} title=${`${r.method} ${r.path}`} id="request-summary">
        <dl class="kv">
          <dt>Id</dt><dd><${Copyable} value=${r.id} label="the request id" /></dd>
          <dt>Wall time</dt><dd><${Time} iso=${r.at} /></dd>
          <dt>Virtual time</dt><dd><${Time} iso=${r.virtual_at} /></dd>
          <dt>Answer</dt><dd>${r.status}${r.code ? html` <span class="mono">${r.code}</span>` : null} ${r.message ?? ''}</dd>
          <dt>Auth</dt><dd>${r.auth}${r.environment ? ` · ${r.environment}` : ''}</dd>
          <dt>Partner</dt><dd>${r.client_id ? html`<${Copyable} value=${r.client_id} label="the client id" href=${link('partners', r.client_id)} />` : '-'}</dd>
          <dt>Took</dt><dd>${Math.round(r.duration_ms)} ms</dd>
          ${r.fault ? html`<dt>Fault</dt><dd><span class="pill fault">fault ${r.fault}</span></dd>` : null}
        </dl>
        ${r.hint ? html`<${Hint} hint=${r.hint} />` : null}
      </${Section}>
      <div class="two">
        <${Section} title="Request" id="request-sent"><h3>Headers</h3><${Json} value=${r.headers} /><h3>Body</h3><${Json} value=${r.request_body ?? ''} /></${Section}>
        <${Section} title="Response" id="request-answer"><${Json} value=${r.response_body ?? ''} /></${Section}>
      </div>`
    }
  </div>`;
}

/**
 * `prefix=<URI-encoded canonical prefix>; body_sha256=…; body_length=…`, readable.
 * @param {{ hint: string }} props
 */
function Hint({ hint }) {
  const parts = Object.fromEntries(hint.split(/;\s*/).map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  let prefix = parts.prefix ?? '';
  try {
    prefix = decodeURIComponent(prefix);
  } catch {
    // shown as sent
  }
  return html`<div class="hint" data-testid="hint">
    <div><strong>Signature hint</strong> <span class="muted small">the string the sandbox signed (minus the body): diff it with yours</span></div>
    <code class="break">${prefix}<span class="muted">${'<body>'}</span></code>
    <div class="small muted">body sha256 <span class="mono">${parts.body_sha256 ?? '-'}</span>, ${parts.body_length ?? '?'} bytes</div>
  </div>`;
}

function Requests() {
  const [params, set] = useListParams('requests', { q: '', status: '', path: '', client_id: '' });
  const { page, ...filter } = params;
  /** @type {Resource<Paged<RecordedRequest>>} */
  const list = usePaged(`/sandbox/requests${qs({ ...filter, page, per_page: 50 })}`, ['request']);
  const [open, setOpen] = useState(/** @type {string | undefined} */ (undefined));
  const clear = useAction();
  const download = useAction();
  const rows = list.data?.data;
  // The requests listed, as HAR (CONTRACT §19): a plain link; with an admin token it cannot carry
  // the header, so the page fetches the file with it and saves it from memory.
  const har = `/sandbox/requests.har${qs({ ...filter, page, per_page: 50 })}`;
  /** @param {MouseEvent} e */
  const downloadHar = (e) => {
    if (!token.get()) return;
    e.preventDefault();
    void download.run('downloaded', () => saveWithToken(har, HAR_FILE));
  };
  const actions = html`<a class="small" href=${list.error ? undefined : har} download=${HAR_FILE} data-testid="download-har" onClick=${downloadHar}>Download HAR</a>
    <button type="button" class="small" data-action="clear-requests" onClick=${() => clear.run('Requests cleared', () => del('/sandbox/requests').then(() => list.reload()))}>Clear</button>`;
  return html`<${Section} title="Requests to /v1" id="requests" actions=${actions}>
    <div class="filters" role="search" aria-label="Find requests">
      <${Input} label="Search: request id, order reference, text" name="q" type="search" value=${filter.q} onInput=${(/** @type {string} */ q) => set({ q }, { replace: true })} placeholder="req_… or ORD…" size="22" />
      <${Input} label="Status (401, 4xx)" name="status" value=${filter.status} onInput=${(/** @type {string} */ status) => set({ status }, { replace: true })} size="5" />
      <${Input} label="Path contains" name="path" value=${filter.path} onInput=${(/** @type {string} */ path) => set({ path }, { replace: true })} size="16" />
      <${Input} label="Client id" name="client_id" value=${filter.client_id} onInput=${(/** @type {string} */ client_id) => set({ client_id }, { replace: true })} size="20" />
    </div>
    <${ErrorBox} error=${list.error ?? clear.error ?? download.error} />
    <${Pager} meta=${list.data?.meta} label="Requests" onPage=${(/** @type {number} */ p) => set({ page: p })} />
    ${
      rows && rows.length === 0
        ? html`<${EmptyList} what="requests to /v1" filters=${[['search', filter.q], ['status', filter.status], ['path containing', filter.path], ['client id', filter.client_id]]} onClear=${() => set({ q: '', status: '', path: '', client_id: '' })}>
          Partner calls to /v1 show here as they arrive (try the signed curl of <a href="#/start">Get started</a>).</${EmptyList}>`
        : null
    }
    ${
      rows?.length
        ? html`<table class="list cards" data-testid="requests">
          <thead><tr><th><span class="sr-only">Details</span></th><th>Request</th><th>Wall time</th><th>Method</th><th>Path</th><th>Status</th><th>Auth</th><th>Client</th><th>ms</th><th>Why</th></tr></thead>
          <tbody>${rows.map(
            (r) => html`<tr key=${r.id} class=${`req ${r.status >= 400 ? 'failed' : ''}`} data-request=${r.id}>
              <td class="toggle"><button type="button" class="icon" aria-expanded=${open === r.id} aria-label=${`${open === r.id ? 'Hide' : 'Show'} the headers and bodies of ${r.id}`} onClick=${() => setOpen(open === r.id ? undefined : r.id)}>${open === r.id ? '▾' : '▸'}</button></td>
              <td class="key" data-label="Request"><a class="mono small" href=${link('requests', r.id)}>${r.id}</a></td>
              <td data-label="Wall time"><${Time} iso=${r.at} /></td><td data-label="Method">${r.method}</td><td class="mono small break" data-label="Path">${r.path}</td>
              <td data-label="Status"><span class=${`code c${String(r.status)[0]}`}>${r.status}</span></td><td data-label="Auth">${r.auth}${r.environment ? ` · ${r.environment}` : ''}</td>
              <td class="mono small" data-label="Client">${r.client_id ?? '-'}</td><td class="num" data-label="ms">${Math.round(r.duration_ms)}</td>
              <td class="small" data-label="Why">${r.fault ? html`<span class="pill fault">fault ${r.fault}</span> ` : null}${r.code ? html`<span class="mono">${r.code}</span> ` : null}${r.message ?? ''}</td>
            </tr>
            ${r.hint ? html`<tr class="hint-row"><td></td><td colspan="9"><${Hint} hint=${r.hint} /></td></tr>` : null}
            ${
              open === r.id
                ? html`<tr class="expanded"><td></td><td colspan="9"><div class="two">
              <div><h3>Headers</h3><${Json} value=${r.headers} /><h3>Request body</h3><${Json} value=${r.request_body ?? ''} /></div>
              <div><h3>Response body</h3><${Json} value=${r.response_body ?? ''} /></div></div></td></tr>`
                : null
            }`,
          )}</tbody>
        </table><p class="muted small">Open a request (its id) or unfold it (▸) for its headers and bodies (keys masked).</p>`
        : null
    }
  </${Section}>`;
}

const HAR_FILE = 'ramp-sandbox-requests.har';

/**
 * GETs `path` with the admin token and saves the answer as `name`, as the link would have.
 * @param {string} path
 * @param {string} name
 */
async function saveWithToken(path, name) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${token.get()}` } });
  if (!res.ok) {
    /** @type {{ code?: unknown, message?: unknown }} */
    let body = {};
    try {
      body = await res.json();
    } catch {
      // not the error envelope
    }
    throw new ApiError(
      res.status,
      typeof body.code === 'string' ? body.code : `HTTP ${res.status}`,
      typeof body.message === 'string' ? body.message : res.statusText,
    );
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // Released once the browser has surely read it (revoked at once, some browsers lose the file).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function Faults() {
  const faults = useFaults();
  const [form, setForm] = useState({
    path: '/v1/**',
    method: '',
    status: '503',
    latency: '',
    drop: '',
    reset: '',
    truncate: '',
    malformed: '',
    from: '',
    to: '',
    skip: '',
    phase: 'before',
    times: '',
    client_id: '',
  });
  /** @param {keyof typeof form} key */
  const set = (key) => (/** @type {string} */ value) => setForm({ ...form, [key]: value });
  const action = useAction();
  /** @param {Event} e */
  const add = (e) => {
    e.preventDefault();
    /** @type {FaultBody} */
    const body = { phase: form.phase };
    if (form.path.trim()) body.path = form.path.trim();
    if (form.method) body.method = form.method;
    if (form.client_id.trim()) body.client_id = form.client_id.trim();
    if (form.status) body.error = { status: Number(form.status) };
    if (form.latency) body.latency_ms = Number(form.latency);
    if (form.drop) body.drop = Number(form.drop);
    if (form.reset) body.reset = Number(form.reset);
    if (form.truncate) body.truncate = Number(form.truncate);
    if (form.malformed) body.malformed = Number(form.malformed);
    // CONTRACT §22: bounds in virtual time, an instant or a duration from now; the server checks them
    if (form.from.trim() || form.to.trim())
      body.window = { ...(form.from.trim() ? { from: form.from.trim() } : {}), ...(form.to.trim() ? { to: form.to.trim() } : {}) };
    if (form.skip) body.skip = Number(form.skip);
    if (form.times) body.times = Number(form.times);
    action.run(
      (/** @type {import('./types').Fault} */ f) => `Fault ${f.id} added: matching /v1 requests now get it`,
      async () => {
        /** @type {import('./types').Fault} */
        const fault = await post('/sandbox/faults', body);
        faultsChanged();
        return fault;
      },
    );
  };
  /** @param {string} id */
  const remove = (id) =>
    action.run(`Fault ${id} removed`, async () => {
      /** @type {import('./types').Fault} */
      const fault = await del(`/sandbox/faults/${id}`);
      faultsChanged();
      return fault;
    });
  return html`<${Section} title="Faults on /v1" id="faults">
    <form class="form-grid" onSubmit=${add}>
      <${Input} label="Path glob" name="fault_path" value=${form.path} onInput=${set('path')} size="16" />
      <${Select} label="Method" name="fault_method" value=${form.method} onChange=${set('method')} any="any" options=${['GET', 'POST', 'PATCH']} />
      <${Select} label="Answer with" name="fault_status" value=${form.status} onChange=${set('status')} any="(no error)" options=${['429', '500', '502', '503', '504']} />
      <${Input} label="Latency ms" name="fault_latency" value=${form.latency} onInput=${set('latency')} size="6" />
      <${Input} label="Drop rate 0..1" name="fault_drop" value=${form.drop} onInput=${set('drop')} size="4" />
      <${Input} label="Reset rate 0..1" name="fault_reset" value=${form.reset} onInput=${set('reset')} size="4" />
      <${Input} label="Truncate after bytes" name="fault_truncate" value=${form.truncate} onInput=${set('truncate')} size="6" />
      <${Input} label="Non-JSON rate 0..1" name="fault_malformed" value=${form.malformed} onInput=${set('malformed')} size="4" />
      <${Input} label="From (instant or 5m)" name="fault_from" value=${form.from} onInput=${set('from')} placeholder="now" size="10" />
      <${Input} label="To (instant or 10m)" name="fault_to" value=${form.to} onInput=${set('to')} placeholder="never" size="10" />
      <${Input} label="Skip first" name="fault_skip" value=${form.skip} onInput=${set('skip')} placeholder="0" size="4" />
      <${Select} label="Phase" name="fault_phase" value=${form.phase} onChange=${set('phase')} options=${[['before', 'before (not carried out)'], ['after', 'after (carried out, answer lost)']]} />
      <${Input} label="Times" name="fault_times" value=${form.times} onInput=${set('times')} placeholder="always" size="5" />
      <${Input} label="Client id" name="fault_client" value=${form.client_id} onInput=${set('client_id')} placeholder="any" size="14" />
      <div class="form-actions"><button class="primary" type="submit" data-action="add-fault" disabled=${action.busy}>Add fault</button></div>
    </form>
    <p class="muted small">Faults apply to partner calls on /v1 only: the dashboard's own actions go through /sandbox and bypass them.</p>
    ${action.done && !action.error ? html`<p class="ok small" data-testid="action-result">${action.done}</p>` : null}
    <${ErrorBox} error=${action.error ?? faults.error} />
    ${
      faults.data?.length
        ? html`<table class="list cards" data-testid="faults"><thead><tr><th>Id</th><th>Matches</th><th>Does</th><th>When</th><th>Phase</th><th>Applied</th><th>Left</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${faults.data.map(
            (f) => html`<tr key=${f.id}><td class="key mono small" data-label="Id">${f.id}</td>
            <td class="mono small" data-label="Matches">${f.method ?? '*'} ${f.path ?? '/v1/**'}${f.client_id ? ` · ${f.client_id}` : ''}${f.environment ? ` · ${f.environment}` : ''}</td>
            <td data-label="Does">${faultEffects(f)}</td><td class="small" data-label="When"><${FaultWhen} fault=${f} /></td>
            <td data-label="Phase">${f.phase}</td><td class="num" data-label="Applied">${f.applied}</td><td class="num" data-label="Left">${f.remaining ?? '∞'}</td>
            <td class="row-actions"><button type="button" class="small danger" data-action="remove-fault" aria-label=${`Remove fault ${f.id}`} onClick=${() => remove(f.id)}>Remove</button></td></tr>`,
          )}</tbody></table>`
        : html`<${Empty}>No faults: /v1 answers normally.</${Empty}>`
    }
  </${Section}>`;
}
