// Orders of every partner: filters, paging, and a form that creates one (POST /sandbox/orders).
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { post, qs } from './api.js';
import { useMeta } from './meta.js';
import { useListParams } from './router.js';
import { GetStarted } from './start.js';
import {
  EmptyList,
  ErrorBox,
  html,
  Input,
  link,
  money,
  Pager,
  Section,
  Select,
  Status,
  Time,
  useAction,
  usePaged,
  useResource,
} from './ui.js';
/** @import { Resource } from './ui.js' */
/** @import { CreateOrderBody, OrderDetail, OrderLegBody, OrderType, Paged, Partner, SandboxOrderSummary } from './types' */

/**
 * A leg of the create form, as typed: currency, network (crypto), amount.
 * @typedef {[currency: string, network: string, amount: string]} LegFields
 */

/** @typedef {{ from: LegFields, to: LegFields }} Legs */

/**
 * Starting legs per type: amounts and currencies any fixture has (edit them freely).
 * @type {Record<OrderType, Legs>}
 */
const PRESETS = {
  onramp: { from: ['NGN', '', '50000'], to: ['USDT', 'base-sepolia', ''] },
  offramp: { from: ['USDT', 'base-sepolia', '100'], to: ['NGN', '', ''] },
  swap: { from: ['USDC', 'base-sepolia', '100'], to: ['ETH', 'base-sepolia', ''] },
};
/**
 * @param {string} t
 * @returns {t is OrderType}
 */
const hasPreset = (t) => Object.hasOwn(PRESETS, t);
/** @param {string} n */
const liveNetwork = (n) => (n ? n.replace(/-sepolia$|-amoy$|-testnet$|-nile$|-devnet$/, '') : n);

/** @returns {Resource<Partner[]>} */
export function usePartners() {
  return useResource('/sandbox/partners', ['reconnect']);
}

export function OrdersScreen() {
  const meta = useMeta();
  const partners = usePartners();
  const [params, set] = useListParams('orders', { client_id: '', environment: '', status: '', type: '' });
  const { page, ...filter } = params;
  /** @type {Resource<Paged<SandboxOrderSummary>>} */
  const list = usePaged(`/sandbox/orders${qs({ ...filter, page, per_page: 50 })}`, ['order']);
  const [startHidden, setStartHidden] = useState(false);
  const partnerOptions = (partners.data ?? []).map((p) => [p.client_id, `${p.name} (${p.client_id})`]);
  const filtered = Object.values(filter).some(Boolean);
  const rows = list.data?.data;
  // A first visit (no order at all): what it takes to call the API comes first.
  const firstVisit = list.data !== undefined && list.data.meta.total === 0 && !filtered;

  return html`<div class="screen">
    <div class="screen-head"><h1>Orders</h1><${CreateOrder} partners=${partners} /></div>
    ${firstVisit && !startHidden ? html`<${GetStarted} onClose=${() => setStartHidden(true)} />` : null}
    <${Section} title="Every partner's orders" id="orders-list">
      <div class="filters" role="search" aria-label="Filter orders">
        <${Select} label="Partner" name="client_id" value=${filter.client_id} onChange=${(/** @type {string} */ client_id) => set({ client_id })} any="any partner" options=${partnerOptions} />
        <${Select} label="Environment" name="environment" value=${filter.environment} onChange=${(/** @type {string} */ environment) => set({ environment })} any="both" options=${meta.environments} />
        <${Select} label="Status" name="status" value=${filter.status} onChange=${(/** @type {string} */ status) => set({ status })} any="any status" options=${meta.statuses} />
        <${Select} label="Type" name="type" value=${filter.type} onChange=${(/** @type {string} */ type) => set({ type })} any="any type" options=${meta.types} />
      </div>
      <${ErrorBox} error=${list.error} />
      <${Pager} meta=${list.data?.meta} label="Orders" onPage=${(/** @type {number} */ p) => set({ page: p })} />
      ${
        rows && rows.length === 0
          ? html`<${EmptyList} what="orders" filters=${[['partner', filter.client_id], ['environment', filter.environment], ['status', filter.status], ['type', filter.type]]} onClear=${() => set({ client_id: '', environment: '', status: '', type: '' })}>
            Create one with <em>New order</em>, or through /v1 (<a href="#/start">Get started</a>).</${EmptyList}>`
          : html`<table class="list cards" data-testid="orders">
            <thead><tr><th>Reference</th><th>Type</th><th>Status</th><th>Env</th><th>Partner</th><th>From</th><th>To</th><th>Paid</th><th>Updated (virtual)</th></tr></thead>
            <tbody>${(rows ?? []).map(
              (o) => html`<tr key=${o.reference}>
                <td class="key" data-label="Reference"><a href=${link('orders', o.reference)} class="mono">${o.reference}</a></td>
                <td data-label="Type">${o.type}</td>
                <td data-label="Status"><${Status} status=${o.status} /></td>
                <td data-label="Env">${o.environment}</td>
                <td class="mono small" data-label="Partner" title=${o.client_id}>${o.client_id}</td>
                <td class="num" data-label="From">${money(o.from.amount, o.from.currency)}</td>
                <td class="num" data-label="To">${money(o.to.amount, o.to.currency)}</td>
                <td class="num" data-label="Paid">${money(o.amount_paid, o.from.currency)}</td>
                <td data-label="Updated"><${Time} iso=${o.updated_at} /></td>
              </tr>`,
            )}</tbody>
          </table>`
      }
    </${Section}>
  </div>`;
}

/** @param {{ partners: Resource<Partner[]> }} props */
function CreateOrder({ partners: partnerList }) {
  const partners = partnerList.data ?? [];
  // Until the partner list has come (or failed), a create would go out without a partner and
  // come back a 422 naming client_id while the form shows one: the button waits for the list.
  const waiting = partnerList.data === undefined && partnerList.error === undefined;
  const [open, setOpen] = useState(false);
  const [type, setType] = useState('onramp');
  const [env, setEnv] = useState('test');
  const [clientId, setClientId] = useState('');
  const [legs, setLegs] = useState(PRESETS.onramp);
  const [created, setCreated] = useState(/** @type {string | undefined} */ (undefined));
  const action = useAction();
  /**
   * @param {string} t
   * @param {string} [e]
   */
  const choose = (t, e = env) => {
    setType(t);
    if (!hasPreset(t)) return;
    const p = PRESETS[t];
    /** @param {string} n */
    const net = (n) => (e === 'live' ? liveNetwork(n) : n);
    setLegs({ from: [p.from[0], net(p.from[1]), p.from[2]], to: [p.to[0], net(p.to[1]), p.to[2]] });
  };
  /**
   * @param {LegFields} fields
   * @returns {OrderLegBody}
   */
  const leg = ([currency, network, amount]) => ({
    currency,
    ...(network ? { network } : {}),
    ...(amount ? { amount: Number(amount) } : {}),
  });
  /**
   * @param {keyof Legs} side
   * @param {0 | 1 | 2} i
   */
  const setLeg = (side, i) => (/** @type {string} */ v) => {
    /** @type {LegFields} */
    const fields = [...legs[side]];
    fields[i] = v;
    setLegs({ ...legs, [side]: fields });
  };
  /** @param {Event} e */
  const submit = async (e) => {
    e.preventDefault();
    if (waiting) return;
    /** @type {CreateOrderBody} */
    // With no partner to pick, the server's 422 names the missing client_id.
    const body = { client_id: clientId || partners[0]?.client_id || '', environment: env, from: leg(legs.from), to: leg(legs.to) };
    const order = await action.run(
      (/** @type {OrderDetail} */ o) => `Created ${o.reference}`,
      /** @returns {Promise<OrderDetail>} */ () => post('/sandbox/orders', body),
    );
    if (order) setCreated(order.reference);
  };
  // Opening the form puts focus in it (the keyboard's path: New order, Enter, then the fields).
  // In the render itself (a layout effect), not after the next frame: a late focus() would take
  // focus from wherever the user has gone since, on a slow machine even from "Create order"
  // pressed. Only when focus was lost with the New order button (not taken somewhere else).
  const form = useRef(/** @type {HTMLFormElement | null} */ (null));
  useLayoutEffect(() => {
    const now = document.activeElement;
    if (open && (!now || now === document.body || !now.isConnected)) form.current?.querySelector('select')?.focus();
  }, [open]);
  if (!open) {
    return html`<div class="toolbar"><button class="primary" data-action="open-new-order" onClick=${() => setOpen(true)}>New order…</button>
      <span class="muted small">Orders also appear here live when a partner creates them through /v1.</span></div>`;
  }
  return html`<${Section} title="New order" id="new-order" actions=${html`<button type="button" class="small" onClick=${() => setOpen(false)}>Close</button>`}>
    <form class="form-grid" onSubmit=${submit} ref=${form}>
      <${Select} label="Partner" name="partner" value=${clientId || partners[0]?.client_id || ''} onChange=${setClientId} options=${partners.map((p) => [p.client_id, `${p.name} (${p.client_id})`])} />
      <${Select} label="Environment" name="env" value=${env} onChange=${(/** @type {string} */ v) => {
        setEnv(v);
        choose(type, v);
      }} options=${['test', 'live']} />
      <${Select} label="Type" name="type" value=${type} onChange=${(/** @type {string} */ t) => choose(t)} options=${Object.keys(PRESETS)} />
      <${Input} label="From currency" name="from_currency" value=${legs.from[0]} onInput=${setLeg('from', 0)} size="6" />
      <${Input} label="From network (crypto)" name="from_network" value=${legs.from[1]} onInput=${setLeg('from', 1)} size="12" />
      <${Input} label="From amount" name="from_amount" value=${legs.from[2]} onInput=${setLeg('from', 2)} size="9" />
      <${Input} label="To currency" name="to_currency" value=${legs.to[0]} onInput=${setLeg('to', 0)} size="6" />
      <${Input} label="To network (crypto)" name="to_network" value=${legs.to[1]} onInput=${setLeg('to', 1)} size="12" />
      <${Input} label="To amount (or from)" name="to_amount" value=${legs.to[2]} onInput=${setLeg('to', 2)} size="9" />
      <div class="form-actions"><button class="primary" type="submit" data-action="create-order" disabled=${action.busy || waiting}>Create order</button>
        ${waiting ? html`<span class="muted small" data-testid="partners-loading" role="status">Loading the partners…</span>` : null}
        ${created ? html`<span data-testid="created">Created <a href=${link('orders', created)} class="mono">${created}</a></span>` : null}</div>
    </form>
    <p class="muted small">Created for the partner without a signature (POST /sandbox/orders); the recipient is a valid account or address. Magic amounts (docs/control-api.md, "Magic values") work here too.
      Like every dashboard action it goes through /sandbox, so <strong>faults injected on /v1 do not apply to it</strong>.</p>
    <${ErrorBox} error=${action.error} />
  </${Section}>`;
}
