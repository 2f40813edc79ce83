// One order: summary, pay-in, payout, refund, timeline, its lifecycle diagram, its webhook
// deliveries, and the control steps its status allows now (the sandbox says which).
import { html, CopyButton, ErrorBox, Json, KeyValue, link, money, Section, Status, Time, useResource } from './ui.js';
import { Actions } from './order-actions.js';
import { Diagram, NextSteps } from './diagram.js';
import { DeliveryTable } from './deliveries.js';
/** @import { LiveMatch, Resource } from './ui.js' */
/** @import { OrderDetail, OrderLifecycle } from './types' */

/**
 * Any pay-in, payout, refund or recipient (fiat or crypto), read field by field: each field is
 * on some of them.
 * @typedef {{
 *   amount?: number, currency?: string, asset?: string, percentage?: number | null,
 *   account_number?: string, institution_code?: string, account_name?: string, address?: string, network?: string,
 *   tx_reference?: string[] | string | null, tx_hash?: string[] | string | null,
 *   expires_at?: string | null, paid_at?: string | null, refunded_at?: string | null,
 * }} PartyFields
 */

/** @param {{ reference: string }} props */
export function OrderScreen({ reference }) {
  /** @type {LiveMatch} */
  const concerns = ({ event, data }) => event !== 'order' || data.all || data.references.includes(reference);
  /** @type {Resource<OrderDetail>} */
  const order = useResource(`/sandbox/orders/${encodeURIComponent(reference)}`, ['order'], concerns);
  /** @type {Resource<OrderLifecycle>} */
  const lifecycle = useResource(`/sandbox/orders/${encodeURIComponent(reference)}/lifecycle`, ['order'], concerns);
  const o = order.data;
  const l = lifecycle.data;
  const reload = () => Promise.all([order.reload(), lifecycle.reload()]);
  if (!o) {
    return html`<div class="screen"><p><a href="#/orders">← Orders</a></p>${order.error ? html`<${ErrorBox} error=${order.error} />` : html`<p class="loading">Loading ${reference}…</p>`}</div>`;
  }
  // The order and its lifecycle are two reads: until both are of the same status, the controls
  // stay on the page (what they said stays) but disabled, not offering a step the order may no
  // longer allow.
  return html`<div class="screen order-screen" data-testid="order" data-status=${o.status} data-lifecycle-status=${l ? l.status : ''}>
    <div class="crumbs"><a href="#/orders">← Orders</a></div>
    <div class="order-head">
      <h1 class="mono">${o.reference}</h1><${CopyButton} text=${o.reference} label="the order reference" />
      <${Status} status=${o.status} />
      <span class="muted">${o.type}${l ? ` · ${l.environment} · ${l.client_id}` : ''}</span>
    </div>
    <${ErrorBox} error=${order.error} />
    <div class="columns">
      <div class="col-main">
        ${l ? html`<${Actions} order=${o} actions=${l.actions} reachable=${l.reachable} stale=${l.status !== o.status} onDone=${reload} />` : null}
        <${Section} title="Order">
          <${KeyValue} rows=${[
            ['From', money(o.from.amount, o.from.currency) + (o.from.network ? ` on ${o.from.network}` : '')],
            ['To', money(o.to.amount, o.to.currency) + (o.to.network ? ` on ${o.to.network}` : '')],
            ['Paid', money(o.amount_paid, o.from.currency)],
            ['Settled', `${money(o.amount_settled, o.to.currency)} (${o.percentage_settled}%)`],
            ['Refunded', money(o.amount_refunded, o.from.currency)],
            ['Rate', o.pricing?.exchange_rate],
            o.fee ? ['Fee', money(o.fee.total, o.fee.currency)] : null,
            ['Merchant ref.', o.merchant_reference],
            ['Created', html`<${Time} iso=${o.created_at} />`],
            ['Updated', html`<${Time} iso=${o.updated_at} />`],
          ]} />
        </${Section}>
      </div>
      <div class="col-side">
        <${Section} title=${`Lifecycle of ${o.type}`}>
          ${
            l
              ? html`<${Diagram} graph=${l.graph} path=${l.path} status=${l.status} />
            <div class="legend small"><span class="node-key current"></span> now <span class="node-key visited"></span> went through <span class="edge-key"></span> path taken</div>
            <h3>From ${l.status}</h3>
            <${NextSteps} graph=${l.graph} status=${l.status} />`
              : html`<${ErrorBox} error=${lifecycle.error} />`
          }
        </${Section}>
        ${o.metadata ? html`<${Section} title="Metadata"><${Json} value=${o.metadata} /></${Section}>` : null}
      </div>
    </div>
    <div class="triple">
      <${Section} title="Pay-in"><${Party} value=${o.payin} kind="payin" /></${Section}>
      <${Section} title="Payout">${o.payout?.length ? o.payout.map((p) => html`<${Party} value=${p} kind="payout" />`) : html`<p class="muted small">Not sent yet. Recipient:</p><${Party} value=${o.recipient} kind="recipient" />`}</${Section}>
      <${Section} title="Refund">${o.refund ? html`<${Party} value=${o.refund} kind="refund" />` : html`<p class="muted small">No refund.</p>`}</${Section}>
    </div>
    <${Section} title="Timeline" id="timeline">
      <div><table class="list timeline cards" data-testid="timeline">
        <thead><tr><th>Virtual time</th><th>What</th><th>Event</th><th>Details</th></tr></thead>
        <tbody>${(o.timeline ?? []).map(
          (t) => html`<tr class=${`tl-${t.group}`}><td class="key"><${Time} iso=${t.created_at} /></td><td data-label="What">${t.group}</td>
            <td data-label="Event">${t.group === 'status' ? html`<${Status} status=${t.event} />` : html`<span class="mono">${t.event}</span>`}</td>
            <td class="details" data-label="Details">${t.details ? Object.entries(t.details).map(([k, v]) => html`<span class="detail"><span class="muted">${k}</span> ${k === 'delivery_id' ? html`<a class="mono" href=${link('deliveries', String(v))}>${String(v)}</a>` : String(v)}</span>`) : null}</td></tr>`,
        )}</tbody>
      </table></div>
    </${Section}>
    <${Section} title="Webhook deliveries of this order" id="order-deliveries" actions=${html`<a class="small" href=${`#/deliveries?q=${encodeURIComponent(o.reference)}`}>In the delivery log →</a>`}>
      <${DeliveryTable} order=${o.reference} compact />
    </${Section}>
  </div>`;
}

/**
 * A bank account or a crypto address, with amount, references and times when it has them.
 * @param {{ value: PartyFields }} props
 */
function Party({ value }) {
  const v = value;
  const refs = v.tx_reference ?? v.tx_hash;
  return html`<${KeyValue} rows=${[
    v.amount !== undefined ? ['Amount', money(v.amount, v.currency ?? v.asset)] : null,
    v.percentage !== undefined && v.percentage !== null ? ['Share', `${v.percentage}%`] : null,
    v.account_number ? ['Account', `${v.account_number} · ${v.institution_code}`] : null,
    v.account_name ? ['Name', v.account_name] : null,
    v.address ? ['Address', html`<span class="mono small break">${v.address}</span>`] : null,
    v.network ? ['Network', v.network] : null,
    refs && (Array.isArray(refs) ? refs.length : true)
      ? ['Tx', html`<span class="mono small break">${Array.isArray(refs) ? refs.join(', ') : refs}</span>`]
      : null,
    v.expires_at !== undefined ? ['Window ends', html`<${Time} iso=${v.expires_at} />`] : null,
    v.paid_at !== undefined ? ['Paid at', html`<${Time} iso=${v.paid_at} />`] : null,
    v.refunded_at !== undefined ? ['Refunded at', html`<${Time} iso=${v.refunded_at} />`] : null,
  ]} />`;
}
