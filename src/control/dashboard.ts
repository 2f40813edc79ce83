import { z } from 'zod';
import type { Api } from '../http/api';
import type { PartnerRegistry } from '../auth';
import { ISO, type VirtualClock } from '../clock';
import type { OrderService } from '../orders';
import type { Dispatcher } from '../webhooks';

const esc = (s: unknown) =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface DashboardDeps {
  clock: VirtualClock;
  partners: PartnerRegistry;
  orders: OrderService;
  /** Extra sections (webhook deliveries) rendered below the orders. */
  sections?: Array<() => string>;
}

/**
 * `GET /sandbox/dashboard`: a read-only HTML view of the clock, partners and the latest orders,
 * refreshed every 5 s. Everything on it is also in the JSON control API.
 */
export function registerDashboard(api: Api, deps: DashboardDeps): void {
  api.route(
    { method: 'GET', path: '/sandbox/dashboard', operationId: 'dashboard', summary: 'The dashboard (HTML)', auth: 'admin', tag: 'sandbox', data: z.string(), html: true, message: 'The dashboard' },
    ({ ctx }) => {
    const { clock, partners, orders } = deps;
    const latest = [...orders.store.orders.values()].slice(-50).reverse();
    const rows = latest
      .map((o) => {
        const s = orders.summary(o);
        return `<tr><td><a href="/sandbox/orders/${esc(o.reference)}">${esc(o.reference)}</a></td><td>${esc(o.env)}</td><td>${esc(o.clientId)}</td><td>${esc(o.type)}</td><td>${esc(s.from.amount)} ${esc(s.from.currency)}</td><td>${esc(s.to.amount)} ${esc(s.to.currency)}</td><td class="st st-${esc(o.status)}">${esc(o.status)}</td><td>${esc(s.amount_paid)}</td><td>${esc(s.updated_at)}</td></tr>`;
      })
      .join('');
    const partnerRows = partners
      .list()
      .map((p) => `<tr><td>${esc(p.client_id)}</td><td>${esc(p.name)}</td><td>${esc(p.kyb_status)}</td><td>${esc(p.webhook_url ?? '-')}</td><td>${esc(p.events.length)}</td><td>${esc(p.ip_whitelist.join(', ') || 'any')}</td></tr>`)
      .join('');
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<title>ramp-sandbox dashboard</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;white-space:nowrap}
th{background:#f4f4f4}.clock span{margin-right:18px}.st{font-weight:600}.st-completed,.st-settled{color:#17803d}
.st-succeeded{color:#17803d}.st-failed,.st-expired,.st-cancelled,.st-reverted{color:#b42318}.st-refunded,.st-partially_completed{color:#b54708}
code{background:#f4f4f4;padding:1px 4px}
</style></head><body>
<h1>ramp-sandbox</h1>
<div class="clock" id="clock"><span>virtual now <b>${esc(ISO(clock.now()))}</b></span><span>mode <b>${esc(clock.mode)}</b></span><span>speed <b>x${esc(clock.speed)}</b></span><span>pending timers <b>${esc(clock.pending)}</b></span></div>
<p>Advance the clock: <code>curl -X POST -H 'content-type: application/json' -d '{"duration":"5m"}' ${esc(`${ctx.protocol}://${ctx.host}`)}/sandbox/clock/advance</code></p>
<h2>Partners (${partners.list().length})</h2>
<table id="partners"><tr><th>client id</th><th>name</th><th>KYB</th><th>webhook URL</th><th>events</th><th>IP whitelist</th></tr>${partnerRows}</table>
<h2>Latest orders (${orders.store.orders.size} in all)</h2>
<table id="orders"><tr><th>reference</th><th>env</th><th>partner</th><th>type</th><th>from</th><th>to</th><th>status</th><th>paid</th><th>updated</th></tr>${rows || '<tr><td colspan="9">No orders yet.</td></tr>'}</table>
${(deps.sections ?? []).map((render) => render()).join('\n')}
</body></html>`;
    },
  );
}

/** Dashboard section: the latest webhook deliveries. */
export function deliveriesSection(dispatcher: Dispatcher): string {
  const latest = dispatcher.list().slice(-50).reverse();
  const rows = latest
    .map((d) => {
      const last = d.attempts.at(-1);
      return `<tr><td><a href="/sandbox/webhooks/deliveries/${esc(d.id)}">${esc(d.id)}</a></td><td>${esc(d.event)}</td><td>${esc(d.order ?? '-')}</td><td>${esc(d.client_id)}</td><td class="st st-${esc(d.status)}">${esc(d.status)}</td><td>${d.attempts.length}</td><td>${esc(last?.http_status ?? last?.error ?? '-')}</td><td>${esc(d.next_attempt_at === null ? '-' : ISO(d.next_attempt_at))}</td></tr>`;
    })
    .join('');
  return `<h2>Latest webhook deliveries (${dispatcher.list().length} in all)</h2>
<table id="deliveries"><tr><th>delivery</th><th>event</th><th>order</th><th>partner</th><th>status</th><th>attempts</th><th>last answer</th><th>next attempt</th></tr>${rows || '<tr><td colspan="8">No deliveries yet.</td></tr>'}</table>`;
}
