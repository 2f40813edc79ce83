// Orders of every partner: filters, paging, and a form that creates one (POST /sandbox/orders).
import { useEffect, useState } from 'preact/hooks';
import { call, post, qs } from './api.js';
import { loadMeta } from './meta.js';
import { Empty, ErrorBox, html, Input, link, money, Section, Select, shownError, Status, Time, useAction, useLiveVersion, useResource } from './ui.js';
/** @import { Resource, ShownError } from './ui.js' */
/** @import { CreateOrderBody, Envelope, Meta, OrderDetail, OrderLegBody, OrderType, PageMeta, Partner, SandboxOrderSummary } from './types' */

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

export function useMeta() {
  const [meta, setMeta] = useState(/** @type {Meta | undefined} */ (undefined));
  useEffect(() => {
    loadMeta().then(setMeta, () => {});
  }, []);
  return meta;
}

/** @param {{ meta: PageMeta | undefined, page: number, setPage: (page: number) => void }} props */
function Paged({ meta, page, setPage }) {
  if (!meta || meta.last_page <= 1) return null;
  return html`<div class="pager">
    <button class="small" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Newer</button>
    <span class="muted small">page ${meta.current_page} of ${meta.last_page} (${meta.total})</span>
    <button class="small" disabled=${page >= meta.last_page} onClick=${() => setPage(page + 1)}>Older</button>
  </div>`;
}

export function OrdersScreen() {
  const meta = useMeta();
  const partners = usePartners();
  const [filter, setFilter] = useState({ client_id: '', environment: '', status: '', type: '' });
  const [page, setPage] = useState(1);
  const [result, setResult] = useState(
    /** @type {{ data: SandboxOrderSummary[] | undefined, meta: PageMeta | undefined, error: ShownError | undefined }} */ ({ data: undefined, meta: undefined, error: undefined }),
  );
  const path = `/sandbox/orders${qs({ ...filter, page, per_page: 50 })}`;
  // The list is paged: the envelope's meta is needed too, so this one calls the API directly.
  const version = useLiveVersion(['order']);
  useEffect(() => {
    let stale = false;
    /** @type {Promise<Envelope<SandboxOrderSummary[]>>} */
    const answer = call('GET', path);
    answer.then(
      (r) => !stale && setResult({ data: r.data, meta: r.meta, error: undefined }),
      (/** @type {unknown} */ error) => !stale && setResult((s) => ({ ...s, error: shownError(error) })),
    );
    return () => {
      stale = true;
    };
  }, [path, version]);
  /** @param {keyof typeof filter} key */
  const set = (key) => (/** @type {string} */ value) => {
    setPage(1);
    setFilter({ ...filter, [key]: value });
  };
  const partnerOptions = (partners.data ?? []).map((p) => [p.client_id, `${p.name} (${p.client_id})`]);

  return html`<div class="screen">
    <${CreateOrder} partners=${partners.data ?? []} />
    <${Section} title="Orders" actions=${html`<${Paged} meta=${result.meta} page=${page} setPage=${setPage} />`}>
      <div class="filters">
        <${Select} label="Partner" name="client_id" value=${filter.client_id} onChange=${set('client_id')} any="any partner" options=${partnerOptions} />
        <${Select} label="Environment" name="environment" value=${filter.environment} onChange=${set('environment')} any="both" options=${meta?.environments ?? []} />
        <${Select} label="Status" name="status" value=${filter.status} onChange=${set('status')} any="any status" options=${meta?.statuses ?? []} />
        <${Select} label="Type" name="type" value=${filter.type} onChange=${set('type')} any="any type" options=${meta?.types ?? []} />
      </div>
      <${ErrorBox} error=${result.error} />
      ${result.data && result.data.length === 0
        ? html`<${Empty}>No orders${Object.values(filter).some(Boolean) ? ' match these filters' : ' yet: create one above, or through /v1'}.</${Empty}>`
        : html`<table class="list" data-testid="orders">
            <thead><tr><th>Reference</th><th>Type</th><th>Status</th><th>Env</th><th>Partner</th><th>From</th><th>To</th><th>Paid</th><th>Updated (virtual)</th></tr></thead>
            <tbody>${(result.data ?? []).map(
              (o) => html`<tr key=${o.reference}>
                <td><a href=${link('orders', o.reference)} class="mono">${o.reference}</a></td>
                <td>${o.type}</td>
                <td><${Status} status=${o.status} /></td>
                <td>${o.environment}</td>
                <td class="mono small" title=${o.client_id}>${o.client_id}</td>
                <td class="num">${money(o.from.amount, o.from.currency)}</td>
                <td class="num">${money(o.to.amount, o.to.currency)}</td>
                <td class="num">${money(o.amount_paid, o.from.currency)}</td>
                <td><${Time} iso=${o.updated_at} /></td>
              </tr>`,
            )}</tbody>
          </table>`}
    </${Section}>
  </div>`;
}

/** @param {{ partners: Partner[] }} props */
function CreateOrder({ partners }) {
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
    /** @type {CreateOrderBody} */
    // With no partner to pick, the server's 422 names the missing client_id.
    const body = { client_id: clientId || partners[0]?.client_id || '', environment: env, from: leg(legs.from), to: leg(legs.to) };
    const order = await action.run('created', /** @returns {Promise<OrderDetail>} */ () => post('/sandbox/orders', body));
    if (order) setCreated(order.reference);
  };
  if (!open) {
    return html`<div class="toolbar"><button class="primary" onClick=${() => setOpen(true)}>New order…</button>
      <span class="muted small">Orders also appear here live when a partner creates them through /v1.</span></div>`;
  }
  return html`<${Section} title="New order" actions=${html`<button class="small" onClick=${() => setOpen(false)}>Close</button>`}>
    <form class="form-grid" onSubmit=${submit}>
      <${Select} label="Partner" name="partner" value=${clientId} onChange=${setClientId} options=${partners.map((p) => [p.client_id, `${p.name} (${p.client_id})`])} />
      <${Select} label="Environment" name="env" value=${env} onChange=${(/** @type {string} */ v) => { setEnv(v); choose(type, v); }} options=${['test', 'live']} />
      <${Select} label="Type" name="type" value=${type} onChange=${(/** @type {string} */ t) => choose(t)} options=${Object.keys(PRESETS)} />
      <${Input} label="From currency" name="from_currency" value=${legs.from[0]} onInput=${setLeg('from', 0)} size="6" />
      <${Input} label="From network (crypto)" name="from_network" value=${legs.from[1]} onInput=${setLeg('from', 1)} size="12" />
      <${Input} label="From amount" name="from_amount" value=${legs.from[2]} onInput=${setLeg('from', 2)} size="9" />
      <${Input} label="To currency" name="to_currency" value=${legs.to[0]} onInput=${setLeg('to', 0)} size="6" />
      <${Input} label="To network (crypto)" name="to_network" value=${legs.to[1]} onInput=${setLeg('to', 1)} size="12" />
      <${Input} label="To amount (or from)" name="to_amount" value=${legs.to[2]} onInput=${setLeg('to', 2)} size="9" />
      <div class="form-actions"><button class="primary" type="submit" disabled=${action.busy}>Create order</button>
        ${created ? html`<span>Created <a href=${link('orders', created)} class="mono">${created}</a></span>` : null}</div>
    </form>
    <p class="muted small">Created for the partner without a signature (POST /sandbox/orders); the recipient is a valid account or address. Magic amounts (README) work here too.</p>
    <${ErrorBox} error=${action.error} />
  </${Section}>`;
}

