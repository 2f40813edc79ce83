// The request inspector (CONTRACT §11), with the signature hint beside a failed request, and
// fault injection on /v1 (CONTRACT §12).
import { useState } from 'preact/hooks';
import { ApiError, del, post, qs, token } from './api.js';
import { Empty, ErrorBox, html, Input, Json, Section, Select, Time, useAction, useResource } from './ui.js';
/** @import { Resource } from './ui.js' */
/** @import { Fault, FaultBody, RecordedRequest } from './types' */

export function InspectorScreen() {
  return html`<div class="screen"><${Faults} /><${Requests} /></div>`;
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
  const [filter, setFilter] = useState({ status: '', path: '', client_id: '' });
  /** @param {keyof typeof filter} key */
  const set = (key) => (/** @type {string} */ value) => setFilter({ ...filter, [key]: value });
  /** @type {Resource<RecordedRequest[]>} */
  const list = useResource(`/sandbox/requests${qs({ ...filter, limit: 100 })}`, ['request']);
  const [open, setOpen] = useState(/** @type {string | undefined} */ (undefined));
  const clear = useAction();
  const download = useAction();
  // The requests listed, as HAR (CONTRACT §19): a plain link; with an admin token it cannot carry
  // the header, so the page fetches the file with it and saves it from memory.
  const har = `/sandbox/requests.har${qs({ ...filter, limit: 100 })}`;
  /** @param {MouseEvent} e */
  const downloadHar = (e) => {
    if (!token.get()) return;
    e.preventDefault();
    void download.run('downloaded', () => saveWithToken(har, HAR_FILE));
  };
  const actions = html`<a class="small" href=${list.error ? undefined : har} download=${HAR_FILE} data-testid="download-har" onClick=${downloadHar}>Download HAR</a>
    <button class="small" onClick=${() => clear.run('cleared', () => del('/sandbox/requests')).then(() => list.reload())}>Clear</button>`;
  return html`<${Section} title="Requests to /v1" actions=${actions}>
    <div class="filters">
      <${Input} label="Status (401, 4xx)" name="status" value=${filter.status} onInput=${set('status')} size="5" />
      <${Input} label="Path contains" name="path" value=${filter.path} onInput=${set('path')} size="16" />
      <${Input} label="Client id" name="client_id" value=${filter.client_id} onInput=${set('client_id')} size="20" />
    </div>
    <${ErrorBox} error=${list.error ?? clear.error ?? download.error} />
    ${list.data && list.data.length === 0 ? html`<${Empty}>No requests${Object.values(filter).some(Boolean) ? ' match' : ' yet'}.</${Empty}>` : null}
    ${list.data?.length
      ? html`<table class="list" data-testid="requests">
          <thead><tr><th>Wall time</th><th>Method</th><th>Path</th><th>Status</th><th>Auth</th><th>Client</th><th>ms</th><th>Why</th></tr></thead>
          <tbody>${list.data.map((r) => html`<tr key=${r.id} class=${`req ${r.status >= 400 ? 'failed' : ''}`} data-request=${r.id} onClick=${() => setOpen(open === r.id ? undefined : r.id)}>
              <td><${Time} iso=${r.at} /></td><td>${r.method}</td><td class="mono small break">${r.path}</td>
              <td><span class=${`code c${String(r.status)[0]}`}>${r.status}</span></td><td>${r.auth}${r.environment ? ` · ${r.environment}` : ''}</td>
              <td class="mono small">${r.client_id ?? '-'}</td><td class="num">${Math.round(r.duration_ms)}</td>
              <td class="small">${r.fault ? html`<span class="pill fault">fault ${r.fault}</span> ` : null}${r.code ? html`<span class="mono">${r.code}</span> ` : null}${r.message ?? ''}</td>
            </tr>
            ${r.hint ? html`<tr class="hint-row"><td></td><td colspan="7"><${Hint} hint=${r.hint} /></td></tr>` : null}
            ${open === r.id ? html`<tr class="expanded"><td></td><td colspan="7"><div class="two">
              <div><h3>Headers</h3><${Json} value=${r.headers} /><h3>Request body</h3><${Json} value=${r.request_body ?? ''} /></div>
              <div><h3>Response body</h3><${Json} value=${r.response_body ?? ''} /></div></div></td></tr>` : null}`)}</tbody>
        </table><p class="muted small">Click a request for its headers and bodies (keys masked).</p>`
      : null}
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
    throw new ApiError(res.status, typeof body.code === 'string' ? body.code : `HTTP ${res.status}`, typeof body.message === 'string' ? body.message : res.statusText);
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
  /** @type {Resource<Fault[]>} */
  const faults = useResource('/sandbox/faults', ['request']);
  const [form, setForm] = useState({ path: '/v1/**', method: '', status: '503', latency: '', drop: '', phase: 'before', times: '', client_id: '' });
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
    if (form.times) body.times = Number(form.times);
    action.run('fault added', () => post('/sandbox/faults', body)).then(() => faults.reload());
  };
  /** @param {string} id */
  const remove = (id) => action.run('fault removed', () => del(`/sandbox/faults/${id}`)).then(() => faults.reload());
  return html`<${Section} title="Faults on /v1" id="faults">
    <form class="form-grid" onSubmit=${add}>
      <${Input} label="Path glob" name="fault_path" value=${form.path} onInput=${set('path')} size="16" />
      <${Select} label="Method" name="fault_method" value=${form.method} onChange=${set('method')} any="any" options=${['GET', 'POST', 'PATCH']} />
      <${Select} label="Answer with" name="fault_status" value=${form.status} onChange=${set('status')} any="(no error)" options=${['429', '500', '502', '503', '504']} />
      <${Input} label="Latency ms" name="fault_latency" value=${form.latency} onInput=${set('latency')} size="6" />
      <${Input} label="Drop rate 0..1" name="fault_drop" value=${form.drop} onInput=${set('drop')} size="4" />
      <${Select} label="Phase" name="fault_phase" value=${form.phase} onChange=${set('phase')} options=${[['before', 'before (not carried out)'], ['after', 'after (carried out, answer lost)']]} />
      <${Input} label="Times" name="fault_times" value=${form.times} onInput=${set('times')} placeholder="always" size="5" />
      <${Input} label="Client id" name="fault_client" value=${form.client_id} onInput=${set('client_id')} placeholder="any" size="14" />
      <div class="form-actions"><button class="primary" type="submit" disabled=${action.busy}>Add fault</button></div>
    </form>
    <${ErrorBox} error=${action.error ?? faults.error} />
    ${faults.data?.length
      ? html`<table class="list" data-testid="faults"><thead><tr><th>Id</th><th>Matches</th><th>Does</th><th>Phase</th><th>Applied</th><th>Left</th><th></th></tr></thead>
          <tbody>${faults.data.map((f) => html`<tr key=${f.id}><td class="mono small">${f.id}</td>
            <td class="mono small">${f.method ?? '*'} ${f.path ?? '/v1/**'}${f.client_id ? ` · ${f.client_id}` : ''}${f.environment ? ` · ${f.environment}` : ''}</td>
            <td>${[f.error ? `HTTP ${f.error.status}${f.error.rate !== undefined ? ` at ${f.error.rate}` : ''}` : '', f.latency_ms !== undefined ? `+${typeof f.latency_ms === 'number' ? f.latency_ms : `${f.latency_ms.min}–${f.latency_ms.max}`} ms` : '', f.drop !== undefined ? `drop ${f.drop}` : ''].filter(Boolean).join(', ')}</td>
            <td>${f.phase}</td><td class="num">${f.applied}</td><td class="num">${f.remaining ?? '∞'}</td>
            <td><button class="small danger" onClick=${() => remove(f.id)}>Remove</button></td></tr>`)}</tbody></table>`
      : html`<${Empty}>No faults: /v1 answers normally.</${Empty}>`}
  </${Section}>`;
}
