import { StepFailure } from '../script/failure';
import { readPath } from '../script/interpolate';
import type { StepHandler } from './context';

/** `expect`: reads the order (and its deliveries) and compares status, statuses, fields, webhooks. */
export const expect: StepHandler<'expect'> = async (step, ctx) => {
  const a = step.args;
  const reference = a.order !== undefined ? await ctx.referenceOf(a.order) : undefined;
  const order = reference ? await ctx.readOrder(reference) : undefined;
  if (a.status && order!.status !== a.status) throw new StepFailure(`order ${reference} is ${order!.status}`, a.status, order!.status);
  if (a.statuses) {
    const passed = order!.timeline.filter((t) => t.group === 'status').map((t) => t.event);
    if (JSON.stringify(passed) !== JSON.stringify(a.statuses))
      throw new StepFailure('the statuses passed through differ', a.statuses, passed);
  }
  if (a.fields) {
    const subject = order ?? Object.fromEntries(ctx.scope);
    for (const [path, raw] of Object.entries(a.fields)) {
      const want = await ctx.resolve(raw);
      const got = readPath(subject, path);
      if (!same(got, want)) throw new StepFailure(`${path} differs`, want, got);
    }
  }
  if (a.webhooks) {
    const delivered = (await ctx.deliveriesOf(reference!)).filter((d) => d.status === 'succeeded').map((d) => d.event as string);
    const want = a.webhooks.events;
    const ok = a.webhooks.in_order ? JSON.stringify(delivered) === JSON.stringify(want) : sameSet(delivered, want);
    if (!ok) throw new StepFailure(`webhooks delivered ${a.webhooks.in_order ? 'in order ' : ''}differ`, want, delivered);
    let rejected = ctx.receiver?.rejected.get(ctx.key) ?? [];
    if (rejected.length > 0) {
      // A readiness run's probes (CONTRACT §21) are meant to be refused: not the scenario's deliveries.
      const ids = ctx.receiver?.rejectedIds.get(ctx.key) ?? [];
      const log = await ctx.client.control.listDeliveries({ query: { client_id: ctx.partner.client_id, per_page: 500 } });
      const probes = new Set(log.data.filter((d) => d.source === 'probe').map((d) => d.id));
      rejected = rejected.filter((_, i) => !probes.has(ids[i] ?? ''));
    }
    if (rejected.length > 0) throw new StepFailure('the built-in receiver rejected sandbox deliveries', [], rejected);
  }
  if (a.delivery) {
    const wanted = a.delivery;
    const d = (await ctx.deliveriesOf(reference!)).filter((x) => x.event === wanted.event).at(-1);
    if (!d) throw new StepFailure(`no delivery of ${wanted.event} for ${reference}`, wanted, null);
    const seen = { status: d.status, attempts: d.attempts.length, errors: d.attempts.map((x) => x.error ?? x.http_status) };
    if (wanted.status && d.status !== wanted.status) throw new StepFailure(`delivery of ${wanted.event} is ${d.status}`, wanted, seen);
    if (wanted.min_attempts && d.attempts.length < wanted.min_attempts)
      throw new StepFailure(`delivery of ${wanted.event} made ${d.attempts.length} attempts`, wanted, seen);
  }
};

function same(got: unknown, want: unknown): boolean {
  if (typeof got === 'number' && typeof want === 'number') return Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));
  return JSON.stringify(got) === JSON.stringify(want);
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}
