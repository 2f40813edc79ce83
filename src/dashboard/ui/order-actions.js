// The control steps an order's status allows now. Which ones: the sandbox's state machine says
// (`actions` of GET /sandbox/orders/{reference}/lifecycle); the page keeps no status list.
import { useState } from 'preact/hooks';
import { post } from './api.js';
import { ErrorBox, html, Section, useAction } from './ui.js';
/** @import { FieldEvent } from './ui.js' */
/** @import { CancelBody, OrderActions, OrderDetail, OrderStatus, PayinBody, PayoutBody, SimulateBody, SimulatedOrder } from './types' */

/**
 * Whole amounts where possible: they fit every currency's precision.
 * @param {number} n
 */
const half = (n) => (n >= 2 ? Math.floor(n / 2) : Math.round(n * 50) / 100);
/** @param {number} n */
const over = (n) => (n >= 10 ? Math.ceil(n * 1.1) : Math.round(n * 110) / 100);

/**
 * @param {{ order: OrderDetail, actions: OrderActions, reachable: OrderStatus[], stale: boolean, onDone: () => Promise<unknown> }} props
 * `stale`: the lifecycle read is of another status than the order's (one of the two is still
 * loading); every control is disabled until they agree.
 */
export function Actions({ order, actions, reachable, stale, onDone }) {
  const action = useAction();
  const busy = action.busy || stale;
  const due = order.from.amount;
  const outstanding = Math.max(0, due - order.amount_paid);
  const [partial, setPartial] = useState(String(half(outstanding || due)));
  const [excess, setExcess] = useState(String(over(due)));
  const [outcome, setOutcome] = useState('success');
  const [percentage, setPercentage] = useState('50');
  const [reason, setReason] = useState('');
  const base = `/sandbox/orders/${encodeURIComponent(order.reference)}`;
  /**
   * Takes one control step: POST {base}/{path}, then `onDone` when it succeeded.
   * @param {string} label
   * @param {'payin' | 'fulfil' | 'payout' | 'expire' | 'cancel'} path
   * @param {PayinBody | PayoutBody | CancelBody} [body]
   */
  const run = (label, path, body) =>
    action.run(label, async () => {
      /** @type {OrderDetail} */
      const o = await post(`${base}/${path}`, body);
      // The page shows the order as it is now before focus goes back (the control used may be gone).
      await onDone();
      return o;
    });
  const targets = reachable.filter((st) => st !== order.status);
  // Its result outlives the control: taken to a final status, the order reaches nothing more.
  const simulate = useAction();
  const any = Object.values(actions).some(Boolean) || targets.length > 0;
  const cur = order.from.currency;

  return html`<${Section} title="Actions" id="actions">
    ${!any ? html`<p class="muted">No step applies to a ${order.status} order: it is final, or it moves on by itself as the clock advances.</p>` : null}
    <div class="actions" data-testid="actions">
      ${
        actions.payin
          ? html`<div class="action-group"><span class="label">Pay in</span>
            <button class="primary" data-action="payin-exact" disabled=${busy} onClick=${() => run('paid in', 'payin', {})}>Exact (${outstanding || due} ${cur})</button>
            <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
              e.preventDefault();
              run('paid in part', 'payin', { amount: Number(partial) });
            }}>
              <input aria-label="Partial amount" name="partial" size="9" value=${partial} onInput=${(/** @type {FieldEvent} */ e) => setPartial(e.currentTarget.value)} />
              <button data-action="payin-partial" type="submit" disabled=${busy}>Partial</button>
            </form>
            <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
              e.preventDefault();
              run('overpaid', 'payin', { amount: Number(excess) });
            }}>
              <input aria-label="Over amount" name="over" size="9" value=${excess} onInput=${(/** @type {FieldEvent} */ e) => setExcess(e.currentTarget.value)} />
              <button data-action="payin-over" type="submit" disabled=${busy}>Over</button>
            </form>
            ${
              actions.payin_unconfirmed
                ? html`<button data-action="payin-unconfirmed" disabled=${busy} title="The pay-in is seen but not confirmed: the order waits in pending until fulfilled" onClick=${() => run('seen, unconfirmed', 'payin', { confirmed: false })}>Unconfirmed</button>`
                : null
            }
            ${['cancelled', 'expired'].includes(order.status) ? html`<span class="muted small">a late pay-in is refunded</span>` : null}
          </div>`
          : null
      }
      ${
        actions.fulfil
          ? html`<div class="action-group"><span class="label">Pending pay-in</span>
            <button class="primary" data-action="fulfil" disabled=${busy} onClick=${() => run('fulfilled', 'fulfil', {})}>Fulfil (confirm)</button></div>`
          : null
      }
      ${
        actions.payout
          ? html`<div class="action-group"><span class="label">Payout outcome</span>
            <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
              e.preventDefault();
              run(`payout ${outcome}`, 'payout', outcome === 'partial' ? { outcome, percentage: Number(percentage) } : { outcome });
            }}>
              <select name="outcome" aria-label="Payout outcome" value=${outcome} onChange=${(/** @type {FieldEvent} */ e) => setOutcome(e.currentTarget.value)}>
                <option value="success">success</option><option value="fail">fail → refunded</option>
                <option value="revert">revert → refunded</option><option value="partial">partial → partially_completed</option>
              </select>
              ${outcome === 'partial' ? html`<input aria-label="Percentage paid out" name="percentage" size="4" value=${percentage} onInput=${(/** @type {FieldEvent} */ e) => setPercentage(e.currentTarget.value)} /><span class="muted">%</span>` : null}
              <button data-action="payout" type="submit" disabled=${busy}>Decide</button>
            </form>
            <span class="muted small">applied when the payout runs</span></div>`
          : null
      }
      ${
        actions.expire || actions.cancel
          ? html`<div class="action-group"><span class="label">End it</span>
            ${actions.expire ? html`<button data-action="expire" disabled=${busy} title="End the pay-in window now" onClick=${() => run('expired', 'expire')}>Expire window</button>` : null}
            ${
              actions.cancel
                ? html`<form class="inline" onSubmit=${(/** @type {Event} */ e) => {
                    e.preventDefault();
                    run('cancelled', 'cancel', reason.trim() ? { reason: reason.trim() } : {});
                  }}>
                  <input aria-label="Cancel reason" name="reason" placeholder="reason (optional)" size="16" value=${reason} onInput=${(/** @type {FieldEvent} */ e) => setReason(e.currentTarget.value)} />
                  <button class="danger" data-action="cancel" type="submit" disabled=${busy}>Cancel order</button></form>`
                : null
            }
          </div>`
          : null
      }
    </div>
    ${targets.length ? html`<${TakeItTo} order=${order} targets=${targets} action=${simulate} stale=${stale} onDone=${onDone} />` : null}
    ${simulate.done && !simulate.error ? html`<p class="ok small result" data-testid="simulate-result">${simulate.done}</p>` : null}
    <${ErrorBox} error=${simulate.error} />
    ${action.done && !action.error && any ? html`<p class="ok small" role="status">Done: ${action.done}. Advance the clock to move the order on.</p>` : null}
    <${ErrorBox} error=${action.error} />
    <details class="help"><summary>How to reach each outcome</summary>
      <ul>
        <li><b>completed</b>: pay in exact, then advance the clock (+30m).</li>
        <li><b>expired</b>: expire the window (or advance 30m without paying).</li>
        <li><b>cancelled</b>: cancel before any pay-in.</li>
        <li><b>failed → refunded</b> / <b>reverted → refunded</b>: decide the payout outcome fail / revert, pay in, advance.</li>
        <li><b>partially_completed</b>: pay in partial, then expire the window and advance; or decide a partial payout.</li>
        <li><b>pending</b>: pay in unconfirmed, then fulfil.</li>
      </ul>
    </details>
  </${Section}>`;
}

/**
 * "Take it to …" (CONTRACT §16): POST /sandbox/orders/{reference}/simulate takes the order to a
 * status it can still reach (the lifecycle's `reachable`), every webhook on the way sent, the
 * clock left where it is; the page shows the statuses it went through.
 * @param {{ order: OrderDetail, targets: OrderStatus[], action: ReturnType<typeof useAction>, stale: boolean, onDone: () => Promise<unknown> }} props
 */
function TakeItTo({ order, targets, action, stale, onDone }) {
  const [status, setStatus] = useState(/** @type {string} */ (targets.includes('completed') ? 'completed' : (targets.at(-1) ?? '')));
  const [reason, setReason] = useState('');
  const chosen = targets.includes(/** @type {OrderStatus} */ (status)) ? status : (targets[0] ?? '');
  /** @param {Event} e */
  const submit = (e) => {
    e.preventDefault();
    /** @type {SimulateBody} */
    const body = { status: chosen };
    if (reason.trim()) body.reason = reason.trim();
    action.run(
      (/** @type {SimulatedOrder} */ r) => `Took ${r.reference} to ${r.status}: ${r.path.join(' → ')}`,
      async () => {
        /** @type {SimulatedOrder} */
        const r = await post(`/sandbox/orders/${encodeURIComponent(order.reference)}/simulate`, body);
        await onDone();
        return r;
      },
    );
  };
  return html`<div class="action-group take-it-to"><span class="label">Take it to</span>
    <form class="inline wrap" onSubmit=${submit}>
      <select name="simulate_status" aria-label="Status to take the order to" value=${chosen} onChange=${(/** @type {FieldEvent} */ e) => setStatus(e.currentTarget.value)}>
        ${targets.map((st) => html`<option value=${st}>${st}</option>`)}
      </select>
      <input name="simulate_reason" aria-label="Reason (optional, kept on the failing step)" placeholder="reason (optional)" maxlength="200" size="18" value=${reason} onInput=${(/** @type {FieldEvent} */ e) => setReason(e.currentTarget.value)} />
      <button type="submit" data-action="simulate" disabled=${action.busy || stale}>Take it there</button>
    </form>
    <span class="muted small">along the shortest path, every webhook sent, the clock unmoved</span>
  </div>`;
}
