// Webhook deliveries: the log with every attempt and the receiver's answers, retry, and a
// form that sends any event on demand.
import { useState } from 'preact/hooks';
import { post, qs } from './api.js';
import { useMeta, usePartners } from './orders.js';
import { Empty, ErrorBox, html, Input, Json, link, Section, Select, Status, Time, useAction, useResource } from './ui.js';
/** @import { FieldEvent, Resource } from './ui.js' */
/** @import { Delivery, Partner, SendEventBody } from './types' */

export function DeliveriesScreen() {
  const meta = useMeta();
  const partners = usePartners();
  const [filter, setFilter] = useState({ client_id: '', event: '', status: '' });
  /** @param {keyof typeof filter} key */
  const set = (key) => (/** @type {string} */ value) => setFilter({ ...filter, [key]: value });
  return html`<div class="screen">
    <${SendEvent} partners=${partners.data ?? []} events=${meta?.events ?? []} />
    <${Section} title="Webhook deliveries">
      <div class="filters">
        <${Select} label="Partner" name="client_id" value=${filter.client_id} onChange=${set('client_id')} any="any partner" options=${(partners.data ?? []).map((p) => [p.client_id, `${p.name} (${p.client_id})`])} />
        <${Select} label="Event" name="event" value=${filter.event} onChange=${set('event')} any="any event" options=${meta?.events ?? []} />
        <${Select} label="Status" name="status" value=${filter.status} onChange=${set('status')} any="any status" options=${meta?.deliveryStatuses ?? []} />
      </div>
      <${DeliveryTable} ...${filter} />
    </${Section}>
  </div>`;
}

/**
 * Deliveries matching the filters, newest first, each with its attempts on demand.
 * @param {{ order?: string, client_id?: string, event?: string, status?: string, compact?: boolean }} props
 */
export function DeliveryTable({ order, client_id, event, status, compact }) {
  const path = `/sandbox/webhooks/deliveries${qs({ order, client_id, event, status, per_page: 100 })}`;
  /** @type {Resource<Delivery[]>} */
  const list = useResource(path, ['delivery']);
  const [open, setOpen] = useState(/** @type {Set<string>} */ (new Set()));
  const action = useAction();
  /** @param {string} id */
  const toggle = (id) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };
  /** @param {string} id */
  const retry = (id) => action.run(`retried ${id}`, () => post(`/sandbox/webhooks/deliveries/${id}/retry`)).then(() => list.reload());
  if (list.error) return html`<${ErrorBox} error=${list.error} />`;
  if (!list.data) return html`<p class="loading">Loading…</p>`;
  if (list.data.length === 0) {
    return html`<${Empty}>No deliveries${order ? ' for this order' : ''}. A partner needs a webhook URL (Partners) for lifecycle events to be delivered.</${Empty}>`;
  }
  return html`<div>
    <${ErrorBox} error=${action.error} />
    <table class="list" data-testid="deliveries">
      <thead><tr><th></th><th>Delivery</th><th>Event</th>${compact ? null : html`<th>Order</th>`}<th>Status</th><th>Attempts</th><th>Last answer</th><th>Next attempt</th><th></th></tr></thead>
      <tbody>${list.data.map((d) => {
        const last = d.attempts.at(-1);
        const expanded = open.has(d.id);
        return html`<tr key=${d.id} class=${`delivery st-row-${d.status}`} data-delivery=${d.id}>
            <td><button class="icon" aria-label=${expanded ? 'Hide attempts' : 'Show attempts'} onClick=${() => toggle(d.id)}>${expanded ? '▾' : '▸'}</button></td>
            <td class="mono small">${d.id}${d.source === 'manual' ? html` <span class="pill">manual</span>` : null}</td>
            <td class="mono small">${d.event}</td>
            ${compact ? null : html`<td>${d.order ? html`<a class="mono small" href=${link('orders', d.order)}>${d.order}</a>` : '-'}</td>`}
            <td><${Status} status=${d.in_flight ? 'sending' : d.status} /></td>
            <td class="num">${d.attempts.length}</td>
            <td class="small">${last ? (last.http_status ? `HTTP ${last.http_status}` : last.error) : '-'}${last?.response_excerpt ? html` <span class="muted excerpt">“${last.response_excerpt.slice(0, 40)}”</span>` : null}</td>
            <td><${Time} iso=${d.next_attempt_at} /></td>
            <td><button class="small" data-action="retry" disabled=${action.busy || d.in_flight} onClick=${() => retry(d.id)}>Retry now</button></td>
          </tr>
          ${expanded ? html`<tr class="expanded"><td></td><td colspan=${compact ? 7 : 8}><${Attempts} delivery=${d} /></td></tr>` : null}`;
      })}</tbody>
    </table>
  </div>`;
}

/** @param {{ delivery: Delivery }} props */
function Attempts({ delivery }) {
  return html`<div class="attempts">
    <table class="list inner">
      <thead><tr><th>#</th><th>Virtual time</th><th>Wall time</th><th>URL</th><th>Answer</th><th>ms</th><th>Body of the answer</th></tr></thead>
      <tbody>${delivery.attempts.map(
        (a) => html`<tr><td>${a.number}${a.manual ? ' (manual)' : ''}</td><td><${Time} iso=${a.virtual_at} /></td><td><${Time} iso=${a.wall_at} /></td>
          <td class="mono small break">${a.url ?? '-'}</td><td>${a.http_status ? `HTTP ${a.http_status}` : ''}${a.error && !a.error.startsWith('HTTP') ? html` <span class="bad">${a.error}</span>` : null}</td>
          <td class="num">${a.duration_ms}</td><td class="mono small break">${a.response_excerpt ?? ''}</td></tr>`,
      )}</tbody>
    </table>
    <details><summary>Body sent</summary><${Json} value=${delivery.payload} /></details>
  </div>`;
}

/** @param {{ partners: Partner[], events: string[] }} props */
function SendEvent({ partners, events }) {
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState({ client_id: '', event: 'order.created', order: '', url: '', data: '' });
  const action = useAction();
  /** @param {keyof typeof form} key */
  const set = (key) => (/** @type {string} */ value) => setForm({ ...form, [key]: value });
  /** @param {Event} e */
  const submit = (e) => {
    e.preventDefault();
    /** @type {unknown} */
    let data;
    try {
      data = form.data.trim() ? JSON.parse(form.data) : undefined;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      action.run('send', () => Promise.reject(Object.assign(new Error(`data: not JSON (${reason})`), { code: 'invalid' })));
      return;
    }
    /** @type {SendEventBody} */
    // With no partner to pick, the server's 422 names the missing client_id.
    const body = { client_id: form.client_id || partners[0]?.client_id || '', event: form.event };
    if (form.order.trim()) body.order = form.order.trim();
    if (form.url.trim()) body.url = form.url.trim();
    if (data !== undefined) {
      if (typeof data !== 'object' || data === null || Array.isArray(data)) {
        action.run('send', () => Promise.reject(Object.assign(new Error('data: must be a JSON object of fields to override'), { code: 'invalid' })));
        return;
      }
      body.data = /** @type {Record<string, unknown>} */ (data);
    }
    action.run('sent', () => post('/sandbox/webhooks/send', body));
  };
  if (!open) return html`<div class="toolbar"><button class="primary" onClick=${() => setOpen(true)}>Send an event…</button></div>`;
  return html`<${Section} title="Send any event, signed" actions=${html`<button class="small" onClick=${() => setOpen(false)}>Close</button>`}>
    <form class="form-grid" onSubmit=${submit}>
      <${Select} label="Partner" name="client_id" value=${form.client_id} onChange=${set('client_id')} options=${partners.map((p) => [p.client_id, `${p.name} (${p.client_id})`])} />
      <${Select} label="Event" name="event" value=${form.event} onChange=${set('event')} options=${events} />
      <${Input} label="Order reference" name="order" value=${form.order} onInput=${set('order')} placeholder="its summary is the data" />
      <${Input} label="URL (default: the partner's)" name="url" value=${form.url} onInput=${set('url')} placeholder="http://127.0.0.1:8080/hooks" />
      <label class="field wide"><span>Data overrides (JSON)</span><textarea name="data" rows="2" value=${form.data} onInput=${(/** @type {FieldEvent} */ e) => set('data')(e.currentTarget.value)} placeholder='{"status": "completed"}'></textarea></label>
      <div class="form-actions"><button class="primary" type="submit" disabled=${action.busy}>Send</button></div>
    </form>
    ${action.done && !action.error ? html`<p class="ok small" role="status">Sent: see the log below.</p>` : null}
    <${ErrorBox} error=${action.error} />
  </${Section}>`;
}
