// Webhook deliveries: the log (a page at a time, with the total, filters and search kept in the
// URL), one delivery's page with every attempt and the receiver's answers, retry, and a form
// that sends any event on demand.
import { useState } from 'preact/hooks';
import { post, qs } from './api.js';
import { useMeta } from './meta.js';
import { usePartners } from './orders.js';
import { hashOf, useListParams } from './router.js';
import {
  Copyable,
  EmptyList,
  ErrorBox,
  html,
  Input,
  Json,
  link,
  Pager,
  Section,
  Select,
  Status,
  Time,
  useAction,
  usePaged,
  useResource,
} from './ui.js';
/** @import { FieldEvent, LiveMatch, Resource } from './ui.js' */
/** @import { Delivery, Partner, SendEventBody } from './types' */

const PER_PAGE = 50;

/**
 * What a retry got: `attempt 9 → HTTP 200`.
 * @param {Delivery} d
 */
export function attemptResult(d) {
  const last = d.attempts.at(-1);
  if (!last) return `${d.id}: no attempt made`;
  const answer = last.http_status ? `HTTP ${last.http_status}` : (last.error ?? 'no answer');
  return `${d.id}: attempt ${last.number} → ${answer}${d.status === 'succeeded' ? '' : ` (${d.status})`}`;
}

export function DeliveriesScreen() {
  const meta = useMeta();
  const partners = usePartners();
  const [params, set] = useListParams('deliveries', { client_id: '', event: '', status: '', q: '' });
  const { page, ...filter } = params;
  return html`<div class="screen">
    <div class="screen-head"><h1>Webhook deliveries</h1><${SendEvent} partners=${partners.data ?? []} events=${meta.events} /></div>
    <${Section} title="Delivery log" id="deliveries-log">
      <div class="filters" role="search" aria-label="Find deliveries">
        <${Input} label="Search: delivery id or order reference" name="q" type="search" value=${filter.q} onInput=${(/** @type {string} */ q) => set({ q }, { replace: true })} placeholder="dlv_… or ORD…" size="24" />
        <${Select} label="Partner" name="client_id" value=${filter.client_id} onChange=${(/** @type {string} */ client_id) => set({ client_id })} any="any partner" options=${(partners.data ?? []).map((p) => [p.client_id, `${p.name} (${p.client_id})`])} />
        <${Select} label="Event" name="event" value=${filter.event} onChange=${(/** @type {string} */ event) => set({ event })} any="any event" options=${meta.events} />
        <${Select} label="Status" name="status" value=${filter.status} onChange=${(/** @type {string} */ status) => set({ status })} any="any status" options=${meta.deliveryStatuses} />
      </div>
      <${DeliveryTable} ...${filter} page=${page} onPage=${(/** @type {number} */ p) => set({ page: p })} onClear=${() => set({ client_id: '', event: '', status: '', q: '' })} />
    </${Section}>
  </div>`;
}

/**
 * Deliveries matching the filters, newest first, a page at a time. On the deliveries screen the
 * page lives in the URL (`page`, `onPage`); on an order's page it is the table's own.
 * @param {{ order?: string, client_id?: string, event?: string, status?: string, q?: string, compact?: boolean, page?: number, onPage?: (page: number) => void, onClear?: () => void }} props
 */
export function DeliveryTable({ order, client_id, event, status, q, compact, page: givenPage, onPage, onClear }) {
  const [ownPage, setOwnPage] = useState(1);
  const page = givenPage ?? ownPage;
  const path = `/sandbox/webhooks/deliveries${qs({ order, client_id, event, status, q, page, per_page: compact ? 20 : PER_PAGE })}`;
  /** @type {Resource<import('./types').Paged<Delivery>>} */
  const list = usePaged(path, ['delivery']);
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
  const retry = (id) =>
    action.run(
      (/** @type {Delivery} */ d) => `Retried ${attemptResult(d)}`,
      async () => {
        /** @type {Delivery} */
        const d = await post(`/sandbox/webhooks/deliveries/${encodeURIComponent(id)}/retry`);
        await list.reload();
        return d;
      },
    );
  const rows = list.data?.data;
  const pager = html`<${Pager} meta=${list.data?.meta} label="Deliveries" onPage=${onPage ?? setOwnPage} />`;
  const result = action.done && !action.error ? html`<p class="ok small result" data-testid="action-result">${action.done}</p>` : null;
  if (list.error) return html`<${ErrorBox} error=${list.error} />`;
  if (!rows) return html`<p class="loading">Loading…</p>`;
  if (rows.length === 0) {
    return html`<div>${result}
      ${
        order
          ? html`<p class="empty" data-testid="empty">No deliveries for this order${page > 1 ? ' on this page' : ''}. A partner needs a webhook URL (Partners, or Get started) for its order events to be delivered.</p>`
          : html`<${EmptyList} what="deliveries" filters=${[['search', q ?? ''], ['partner', client_id ?? ''], ['event', event ?? ''], ['status', status ?? '']]} onClear=${onClear}>
            A partner needs a webhook URL (Partners, or <a href="#/start">Get started</a>) for its order events to be delivered.</${EmptyList}>`
      }
      ${page > 1 ? pager : null}</div>`;
  }
  return html`<div>
    ${pager}
    ${result}
    <${ErrorBox} error=${action.error} />
    <table class="list cards" data-testid="deliveries">
      <thead><tr><th><span class="sr-only">Attempts</span></th><th>Delivery</th><th>Event</th>${compact ? null : html`<th>Order</th>`}<th>Status</th><th>Attempts</th><th>Last answer</th><th>Next attempt</th><th><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${rows.map((d) => {
        const last = d.attempts.at(-1);
        const expanded = open.has(d.id);
        return html`<tr key=${d.id} class=${`delivery st-row-${d.status}`} data-delivery=${d.id}>
            <td class="toggle"><button type="button" class="icon" aria-expanded=${expanded} aria-label=${`${expanded ? 'Hide' : 'Show'} the attempts of ${d.id}`} onClick=${() => toggle(d.id)}>${expanded ? '▾' : '▸'}</button></td>
            <td class="key" data-label="Delivery"><a class="mono small" href=${link('deliveries', d.id)}>${d.id}</a>${d.source === 'manual' ? html` <span class="pill">manual</span>` : null}${ChaosPills(d)}</td>
            <td class="mono small" data-label="Event">${d.event}</td>
            ${compact ? null : html`<td data-label="Order">${d.order ? html`<a class="mono small" href=${link('orders', d.order)}>${d.order}</a>` : '-'}</td>`}
            <td data-label="Status"><${Status} status=${d.in_flight ? 'sending' : d.status} /></td>
            <td class="num" data-label="Attempts">${d.attempts.length}</td>
            <td class="small" data-label="Last answer">${last ? (last.http_status ? `HTTP ${last.http_status}` : last.error) : '-'}${last?.response_excerpt ? html` <span class="muted excerpt">“${last.response_excerpt.slice(0, 40)}”</span>` : null}</td>
            <td data-label="Next attempt"><${Time} iso=${d.next_attempt_at} /></td>
            <td class="row-actions"><button type="button" class="small" data-action="retry" aria-label=${`Retry now: ${d.id}`} disabled=${action.busy || d.in_flight} onClick=${() => retry(d.id)}>Retry now</button></td>
          </tr>
          ${expanded ? html`<tr class="expanded"><td></td><td colspan=${compact ? 7 : 8}><${Attempts} delivery=${d} /></td></tr>` : null}`;
      })}</tbody>
    </table>
  </div>`;
}

/** One delivery: `#/deliveries/dlv_…` (the order's timeline links here). @param {{ id: string }} props */
export function DeliveryScreen({ id }) {
  /** @type {LiveMatch} */
  const concerns = ({ event, data }) => event !== 'delivery' || data.all || data.ids.includes(id);
  /** @type {Resource<Delivery>} */
  const delivery = useResource(`/sandbox/webhooks/deliveries/${encodeURIComponent(id)}`, ['delivery'], concerns);
  const action = useAction();
  const d = delivery.data;
  const retry = () =>
    action.run(
      (/** @type {Delivery} */ r) => `Retried ${attemptResult(r)}`,
      async () => {
        /** @type {Delivery} */
        const r = await post(`/sandbox/webhooks/deliveries/${encodeURIComponent(id)}/retry`);
        await delivery.reload();
        return r;
      },
    );
  return html`<div class="screen" data-testid="delivery" data-delivery=${id} data-status=${d?.status}>
    <div class="crumbs"><a href=${hashOf('deliveries')}>← Webhook deliveries</a></div>
    <div class="order-head"><h1 class="mono">${id}</h1>${d ? html`<${Status} status=${d.in_flight ? 'sending' : d.status} />` : null}</div>
    ${
      !d
        ? delivery.error
          ? html`<${ErrorBox} error=${delivery.error} />`
          : html`<p class="loading">Loading ${id}…</p>`
        : html`
      <${Section} title="Delivery" id="delivery-summary" actions=${html`<button type="button" class="small" data-action="retry" disabled=${action.busy || d.in_flight} onClick=${retry}>Retry now</button>`}>
        ${action.done && !action.error ? html`<p class="ok small result" data-testid="action-result">${action.done}</p>` : null}
        <${ErrorBox} error=${action.error} />
        <dl class="kv">
          <dt>Id</dt><dd><${Copyable} value=${d.id} label="the delivery id" /></dd>
          <dt>Event</dt><dd class="mono">${d.event}${d.source === 'manual' ? html` <span class="pill">manual</span>` : null}</dd>
          ${d.chaos ? html`<dt>Webhook chaos</dt><dd data-testid="delivery-chaos">${ChaosPills(d)}${d.duplicate_of ? html` a duplicate of <a class="mono small" href=${link('deliveries', d.duplicate_of)}>${d.duplicate_of}</a>` : null}</dd>` : null}
          <dt>Order</dt><dd>${d.order ? html`<${Copyable} value=${d.order} label="the order reference" href=${link('orders', d.order)} />` : '-'}</dd>
          <dt>Partner</dt><dd><${Copyable} value=${d.client_id} label="the client id" href=${link('partners', d.client_id)} /></dd>
          <dt>Attempts</dt><dd>${d.attempts.length}</dd>
          <dt>Next attempt</dt><dd><${Time} iso=${d.next_attempt_at} /></dd>
        </dl>
      </${Section}>
      <${Section} title="Attempts and answers" id="delivery-attempts"><${Attempts} delivery=${d} open /></${Section}>`
    }
  </div>`;
}

/**
 * What webhook chaos did to a delivery (CONTRACT §22): one pill per mark, none without chaos.
 * @param {Delivery} d
 */
function ChaosPills(d) {
  return (d.chaos ?? []).map((mark) => html` <span class="pill" data-chaos=${mark} title=${CHAOS_TITLES[mark]}>${mark}</span>`);
}

/** @type {Record<string, string>} */
const CHAOS_TITLES = {
  duplicate: 'webhook chaos sent this event twice: this is the second delivery',
  reordered: 'webhook chaos held this delivery; a later event of its order went first',
  delayed: 'webhook chaos held its first attempt',
};

/** @param {{ delivery: Delivery, open?: boolean }} props */
function Attempts({ delivery, open }) {
  return html`<div class="attempts">
    <div class="scroll" tabindex="0" role="region" aria-label=${`Attempts of ${delivery.id}`}><table class="list inner">
      <thead><tr><th>#</th><th>Virtual time</th><th>Wall time</th><th>URL</th><th>Answer</th><th>ms</th><th>Body of the answer</th></tr></thead>
      <tbody>${delivery.attempts.map(
        (
          a,
        ) => html`<tr><td>${a.number}${a.manual ? ' (manual)' : ''}</td><td><${Time} iso=${a.virtual_at} /></td><td><${Time} iso=${a.wall_at} /></td>
          <td class="mono small break">${a.url ?? '-'}</td><td>${a.http_status ? `HTTP ${a.http_status}` : ''}${a.error && !a.error.startsWith('HTTP') ? html` <span class="bad">${a.error}</span>` : null}</td>
          <td class="num">${a.duration_ms}</td><td class="mono small break">${a.response_excerpt ?? ''}</td></tr>`,
      )}</tbody>
    </table></div>
    <details open=${open}><summary>Body sent</summary><${Json} value=${delivery.payload} /></details>
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
        action.run('send', () =>
          Promise.reject(Object.assign(new Error('data: must be a JSON object of fields to override'), { code: 'invalid' })),
        );
        return;
      }
      body.data = /** @type {Record<string, unknown>} */ (data);
    }
    action.run(
      (/** @type {Delivery} */ d) => `Sent ${attemptResult(d)}`,
      () => post('/sandbox/webhooks/send', body),
    );
  };
  if (!open)
    return html`<button type="button" class="primary" data-action="open-send" onClick=${() => setOpen(true)}>Send an event…</button>`;
  return html`<${Section} title="Send any event, signed" id="send-event" actions=${html`<button type="button" class="small" onClick=${() => setOpen(false)}>Close</button>`}>
    <form class="form-grid" onSubmit=${submit}>
      <${Select} label="Partner" name="client_id" value=${form.client_id} onChange=${set('client_id')} options=${partners.map((p) => [p.client_id, `${p.name} (${p.client_id})`])} />
      <${Select} label="Event" name="event" value=${form.event} onChange=${set('event')} options=${events} />
      <${Input} label="Order reference" name="order" value=${form.order} onInput=${set('order')} placeholder="its summary is the data" />
      <${Input} label="URL (default: the partner's)" name="url" value=${form.url} onInput=${set('url')} placeholder="http://127.0.0.1:8080/hooks" />
      <label class="field wide"><span>Data overrides (JSON)</span><textarea name="data" rows="2" value=${form.data} onInput=${(/** @type {FieldEvent} */ e) => set('data')(e.currentTarget.value)} placeholder='{"status": "completed"}'></textarea></label>
      <div class="form-actions"><button class="primary" type="submit" data-action="send" disabled=${action.busy}>Send</button></div>
    </form>
    ${action.done && !action.error ? html`<p class="ok small" data-testid="action-result">${action.done}: see the log below.</p>` : null}
    <${ErrorBox} error=${action.error} />
  </${Section}>`;
}
