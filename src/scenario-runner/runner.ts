import { sign } from '../auth';
import { httpRequest } from '../transport/http-request';
import { parseDuration } from '../clock';
import type { KeySet } from '../auth';
import { SandboxClient, type PartnerIdentity, type Reply } from './client';
import { createFakeHelpers, interpolate, readPath, ReferenceError_, wrongSignature } from './interpolate';
import { downUrl, type BuiltInReceiver } from './receiver';
import type { AdversarialKind, Scenario, Step } from './schema';
import type { OrderDetail } from '../orders';
import type { deliveryView } from '../webhooks';

/** Wire shapes the runner reads back (the sandbox's own view types). */
type OrderView = OrderDetail & { timeline: NonNullable<OrderDetail['timeline']>; payin: Record<string, any> };
type DeliveryView = ReturnType<typeof deliveryView>;
import { WEBHOOK_EVENTS } from '../shared/events';

/** What a step expected and what it saw, for the failure report. */
export class StepFailure extends Error {
  override name = 'StepFailure';
  constructor(
    message: string,
    readonly expected?: unknown,
    readonly seen?: unknown,
  ) {
    super(message);
  }
}

export interface StepResult {
  index: number;
  kind: string;
  label: string;
  ok: boolean;
  ms: number;
  error?: string;
  expected?: unknown;
  seen?: unknown;
}

export interface ScenarioResult {
  file: string;
  name: string;
  ok: boolean;
  ms: number;
  steps: StepResult[];
  failure?: StepResult;
  /** Order timelines and deliveries so far, when a step failed. */
  context?: string;
  orders: string[];
  statuses: string[];
  events: string[];
}

export interface RunContext {
  client: SandboxClient;
  /** The built-in receiver, or undefined when webhooks go to --target. */
  receiver?: BuiltInReceiver;
  /** The partner's receiver (--target), instead of the built-in one. */
  targetUrl?: string;
  /** --partner: act as this identity (provisioned with exactly these keys, or reused). */
  identity?: PartnerIdentity;
  seed: number;
  /** A unique key per run of a scenario (receiver path, partner name). */
  key: string;
  onStep?: (step: Step, index: number) => void;
}

const DEFAULT_DELIVER_EXPECT: Record<AdversarialKind, number | '2xx' | '4xx' | '5xx'> = {
  bad_signature: '4xx',
  stale_timestamp: '4xx',
  tampered_body: '4xx',
  duplicate: '2xx',
  out_of_order: '2xx',
};

const BUG_NAMES: Record<AdversarialKind, string> = {
  bad_signature: 'a delivery with a bad signature',
  stale_timestamp: 'a delivery with a stale timestamp (10 min old)',
  tampered_body: 'a delivery whose body was changed after signing',
  duplicate: 'a duplicate delivery (same data.reference + event)',
  out_of_order: 'an older event delivered after a newer one',
};

/** Runs one scenario against a sandbox; never throws for a failing step. */
export async function runScenario(scenario: Scenario, ctx: RunContext): Promise<ScenarioResult> {
  const started = performance.now();
  const env = scenario.environment;
  const { client } = ctx;
  const scope = new Map<string, unknown>();
  const orders: string[] = [];
  const results: StepResult[] = [];
  let partner: PartnerIdentity | undefined;
  let targetUrl = '';

  const fake = createFakeHelpers(ctx.seed, {
    async format(network) {
      const formats = await client.addressFormats(partner!, env);
      const format = formats.get(network);
      if (!format) throw new StepFailure(`unknown network ${network} in the ${env} environment`);
      return format;
    },
    async accountName(bankCode, accountNumber) {
      const res = await client.publicGet(`/v1/account-lookup?account_number=${accountNumber}&bank_code=${encodeURIComponent(bankCode)}`, partner!, env);
      if (res.status !== 200) throw new StepFailure(`account lookup at ${bankCode} answered ${res.status}: ${res.body?.message ?? res.text}`);
      return res.body.data.account_name;
    },
  });

  /** Faults this scenario injected and has not removed: removed when it ends. */
  const injected = new Set<string>();
  // A step that expects a 429 must see it, not have the client wait it out.
  const v1 = (method: string, path: string, body?: unknown, step?: Step) => client.v1(method, path, partner!, env, body, step?.expect_error?.status !== 429);
  const control = (method: string, path: string, body?: unknown) => client.control(method, path, body);

  const referenceOf = async (value: unknown): Promise<string> => {
    const v = typeof value === 'string' && scope.has(value) ? scope.get(value) : await interpolate(value, scope, fake);
    const ref = typeof v === 'string' ? v : (v as { reference?: unknown })?.reference;
    if (typeof ref !== 'string') throw new StepFailure(`cannot find an order reference in ${JSON.stringify(value)}`);
    return ref;
  };
  const readOrder = async (reference: string): Promise<OrderView> => {
    const res = await v1('GET', `/v1/orders/${reference}?include=payout,timeline`);
    if (res.status !== 200) throw new StepFailure(`GET /v1/orders/${reference} answered ${res.status}: ${res.body?.message ?? res.text}`);
    return res.body.data;
  };
  const deliveriesOf = async (reference: string): Promise<DeliveryView[]> => {
    // Let attempts in flight land before judging what was delivered.
    for (let i = 0; i < 400; i++) {
      const res = await control('GET', `/sandbox/webhooks/deliveries?order=${reference}&per_page=500`);
      const list = (res.body?.data ?? []) as DeliveryView[];
      if (!list.some((d) => d.in_flight)) return list.reverse();
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new StepFailure(`deliveries for ${reference} still in flight after 10 s`);
  };
  /** A failing API reply becomes a StepFailure, unless the step expects that error. */
  const expectReply = (step: Step, res: Reply): any => {
    const wanted = step.expect_error;
    if (wanted?.dropped) {
      if (!res.dropped) throw new StepFailure('expected the connection to be closed without an answer', wanted, { status: res.status, code: res.body?.code, message: res.body?.message });
      return undefined;
    }
    if (res.dropped) {
      throw new StepFailure('the connection was closed without an answer (an injected drop? expect it with expect_error: {dropped: true})', wanted ?? 'a 2xx answer', { dropped: true });
    }
    if (wanted) {
      if (res.status < 400) throw new StepFailure('expected an error', wanted, { status: res.status, body: res.body });
      const mismatch =
        (wanted.status !== undefined && wanted.status !== res.status) ||
        (wanted.code !== undefined && wanted.code !== res.body?.code) ||
        (wanted.message !== undefined && !String(res.body?.message ?? '').includes(wanted.message));
      if (mismatch) throw new StepFailure('the error was not the expected one', wanted, { status: res.status, code: res.body?.code, message: res.body?.message });
      return undefined;
    }
    if (res.status >= 400 || res.status === 0) {
      const injected = res.body?.code === 'E_SANDBOX_FAULT' ? ` (${res.body.message}; expect it with expect_error: {status: ${res.status}, code: E_SANDBOX_FAULT})` : '';
      throw new StepFailure(`request failed with ${res.status}${injected}`, 'a 2xx answer', { status: res.status, code: res.body?.code, message: res.body?.message ?? res.text });
    }
    return res.body?.data;
  };

  const steps: Record<Step['kind'], (step: any) => Promise<void>> = {
    async quote(step: Extract<Step, { kind: 'quote' }>) {
      const body = await interpolate(step.args, scope, fake);
      const data = expectReply(step, await v1('POST', '/v1/orders/quote', body, step));
      if (step.as && data) scope.set(step.as, data);
    },
    async order(step: Extract<Step, { kind: 'order' }>) {
      const body = (await interpolate(step.args, scope, fake)) as Record<string, unknown>;
      if (body.quote !== undefined) {
        const q = typeof step.args.quote === 'string' && scope.has(step.args.quote) ? scope.get(step.args.quote) : body.quote;
        body.quote_id = (q as { quote_id?: unknown })?.quote_id ?? q;
        delete body.quote;
      }
      const data = expectReply(step, await v1('POST', '/v1/orders', body, step));
      if (data?.reference) {
        orders.push(data.reference);
        if (step.as) scope.set(step.as, data);
      }
    },
    async expect(step: Extract<Step, { kind: 'expect' }>) {
      const a = step.args;
      const reference = a.order !== undefined ? await referenceOf(a.order) : undefined;
      const order = reference ? await readOrder(reference) : undefined;
      if (a.status && order!.status !== a.status) throw new StepFailure(`order ${reference} is ${order!.status}`, a.status, order!.status);
      if (a.statuses) {
        const passed = order!.timeline.filter((t) => t.group === 'status').map((t) => t.event);
        if (JSON.stringify(passed) !== JSON.stringify(a.statuses)) throw new StepFailure('the statuses passed through differ', a.statuses, passed);
      }
      if (a.fields) {
        const subject = order ?? Object.fromEntries(scope);
        for (const [path, raw] of Object.entries(a.fields)) {
          const want = await interpolate(raw, scope, fake);
          const got = readPath(subject, path);
          if (!same(got, want)) throw new StepFailure(`${path} differs`, want, got);
        }
      }
      if (a.webhooks) {
        const delivered = (await deliveriesOf(reference!)).filter((d) => d.status === 'succeeded').map((d) => d.event as string);
        const want = a.webhooks.events;
        const ok = a.webhooks.in_order ? JSON.stringify(delivered) === JSON.stringify(want) : sameSet(delivered, want);
        if (!ok) throw new StepFailure(`webhooks delivered ${a.webhooks.in_order ? 'in order ' : ''}differ`, want, delivered);
        const rejected = ctx.receiver?.rejected.get(ctx.key) ?? [];
        if (rejected.length > 0) throw new StepFailure('the built-in receiver rejected sandbox deliveries', [], rejected);
      }
      if (a.delivery) {
        const matching = (await deliveriesOf(reference!)).filter((d) => d.event === a.delivery!.event);
        const d = matching.at(-1);
        const seen = d && { status: d.status, attempts: d.attempts.length, errors: d.attempts.map((x) => x.error ?? x.http_status) };
        if (!d) throw new StepFailure(`no delivery of ${a.delivery.event} for ${reference}`, a.delivery, null);
        if (a.delivery.status && d.status !== a.delivery.status) throw new StepFailure(`delivery of ${a.delivery.event} is ${d.status}`, a.delivery, seen);
        if (a.delivery.min_attempts && d.attempts.length < a.delivery.min_attempts) throw new StepFailure(`delivery of ${a.delivery.event} made ${d.attempts.length} attempts`, a.delivery, seen);
      }
    },
    async payin(step: Extract<Step, { kind: 'payin' }>) {
      const reference = await referenceOf(step.args.order);
      const body: Record<string, unknown> = {};
      const amount = await interpolate(step.args.amount, scope, fake);
      if (typeof amount === 'string' && amount.endsWith('%')) {
        const order = await readOrder(reference);
        body.amount = (order.from.amount * Number(amount.slice(0, -1))) / 100;
      } else if (amount !== undefined) body.amount = amount;
      if (step.args.confirmed !== undefined) body.confirmed = step.args.confirmed;
      if (step.args.tx_hash) body.tx_hash = await interpolate(step.args.tx_hash, scope, fake);
      if (step.args.tx_reference) body.tx_reference = await interpolate(step.args.tx_reference, scope, fake);
      expectReply(step, await control('POST', `/sandbox/orders/${reference}/payin`, body));
    },
    async fulfil(step: Extract<Step, { kind: 'fulfil' }>) {
      const reference = await referenceOf(step.args.order);
      const order = await readOrder(reference);
      const a = (await interpolate(step.args, scope, fake)) as Record<string, string | undefined>;
      const body =
        order.type === 'onramp'
          ? { reference: a.reference ?? order.payin.tx_reference.at(-1) ?? fake.reference(), institution: a.institution ?? order.payin.institution_code }
          : { tx_hash: a.tx_hash ?? order.payin.tx_hash.at(-1) ?? (await fake.tx_hash(order.payin.network)) };
      expectReply(step, await v1('POST', `/v1/orders/${reference}/fulfill`, body, step));
    },
    async payout(step: Extract<Step, { kind: 'payout' }>) {
      const reference = await referenceOf(step.args.order);
      const { order: _, ...body } = step.args;
      expectReply(step, await control('POST', `/sandbox/orders/${reference}/payout`, body));
    },
    async cancel(step: Extract<Step, { kind: 'cancel' }>) {
      const reference = await referenceOf(step.args.order);
      expectReply(step, await v1('PATCH', `/v1/orders/${reference}/cancel`, step.args.reason ? { reason: step.args.reason } : {}, step));
    },
    async expire(step: Extract<Step, { kind: 'expire' }>) {
      const reference = await referenceOf(step.args.order);
      expectReply(step, await control('POST', `/sandbox/orders/${reference}/expire`));
    },
    async advance(step: Extract<Step, { kind: 'advance' }>) {
      const a = step.args;
      if ('duration' in a) {
        expectReply(step, await control('POST', '/sandbox/clock/advance', { duration: a.duration }));
        return;
      }
      const reference = await referenceOf(a.until.order);
      const clock = await control('GET', '/sandbox/clock');
      const deadline = clock.body.data.now_ms + parseDuration(a.within)!;
      for (;;) {
        const order = await readOrder(reference);
        if (order.status === a.until.status) return;
        const now = await control('GET', '/sandbox/clock');
        const next = now.body.data.next_timer_at ? Date.parse(now.body.data.next_timer_at) : undefined;
        if (next === undefined || next > deadline) {
          if (now.body.data.now_ms < deadline) await control('POST', '/sandbox/clock/advance', { to: new Date(deadline).toISOString() });
          const last = await readOrder(reference);
          if (last.status === a.until.status) return;
          throw new StepFailure(`bound exceeded: order ${reference} did not reach ${a.until.status} within ${a.within}`, a.until.status, last.status);
        }
        expectReply(step, await control('POST', '/sandbox/clock/advance', { to: new Date(next).toISOString() }));
      }
    },
    async deliver(step: Extract<Step, { kind: 'deliver' }>) {
      await deliverAdversarial(step);
    },
    async fault(step: Extract<Step, { kind: 'fault' }>) {
      const a = (await interpolate(step.args, scope, fake)) as typeof step.args;
      if ('clear' in a) {
        const raw = step.args as { clear: unknown };
        const named = typeof raw.clear === 'string' && scope.has(raw.clear) ? scope.get(raw.clear) : a.clear;
        const ids = named === true ? [...injected] : [typeof named === 'string' ? named : (named as { id?: string })?.id];
        for (const id of ids) {
          if (typeof id !== 'string') throw new StepFailure(`cannot find a fault id in ${JSON.stringify(raw.clear)}`);
          const res = await control('DELETE', `/sandbox/faults/${encodeURIComponent(id)}`);
          if (res.status !== 404) expectReply(step, res); // 404: already used up (times)
          injected.delete(id);
        }
        return;
      }
      // Scoped to the scenario's partner unless told otherwise: runs sharing a sandbox stay apart.
      const data = expectReply(step, await control('POST', '/sandbox/faults', { ...a, client_id: a.client_id ?? partner!.client_id }));
      if (data?.id) {
        injected.add(data.id);
        if (step.as) scope.set(step.as, data);
      }
    },
    async find(step: Extract<Step, { kind: 'find' }>) {
      const a = (await interpolate(step.args, scope, fake)) as typeof step.args;
      const found: Array<{ reference: string }> = [];
      for (let page = 1; ; page++) {
        const res = await v1('GET', `/v1/orders?per_page=100&page=${page}${a.status ? `&status=${a.status}` : ''}`);
        const data = expectReply({ ...step, expect_error: undefined }, res) as Array<Record<string, unknown>>;
        for (const o of data) {
          if (a.merchant_reference !== undefined && o.merchant_reference !== a.merchant_reference) continue;
          if (a.customer_reference !== undefined && o.customer_reference !== a.customer_reference) continue;
          found.push(o as { reference: string });
        }
        if (page >= (res.body?.meta?.last_page ?? 1)) break;
      }
      const { count, ...filter } = a;
      if (found.length !== count) throw new StepFailure(`found ${found.length} orders matching ${JSON.stringify(filter)}`, count, found.map((o) => o.reference));
      for (const o of found) if (!orders.includes(o.reference)) orders.push(o.reference);
      if (step.as && found[0]) scope.set(step.as, found[0]);
    },
    async partner(step: Extract<Step, { kind: 'partner' }>) {
      const a = step.args;
      const patch: Record<string, unknown> = { ...a };
      if (a.webhook_url === 'target') patch.webhook_url = targetUrl;
      if (a.webhook_url === 'down') patch.webhook_url = await downUrl();
      expectReply(step, await control('PATCH', `/sandbox/partners/${partner!.client_id}`, patch));
    },
  };

  /** Sends a crafted delivery straight to the target and checks its answer. */
  async function deliverAdversarial(step: Extract<Step, { kind: 'deliver' }>) {
    const a = step.args;
    const reference = await referenceOf(a.order);
    const delivered = (await deliveriesOf(reference)).filter((d) => d.status === 'succeeded');
    if (delivered.length === 0) throw new StepFailure(`no delivered webhook for ${reference} to base a ${a.kind} delivery on`);
    const pick = a.event
      ? delivered.filter((d) => d.event === a.event).at(-1)
      : a.kind === 'out_of_order'
        ? delivered[0]
        : delivered.at(-1);
    if (!pick) throw new StepFailure(`no delivered ${a.event} webhook for ${reference}`);
    if (a.kind === 'out_of_order' && delivered.indexOf(pick) === delivered.length - 1 && delivered.length > 1) {
      throw new StepFailure('out_of_order needs an event older than the latest delivered one');
    }
    const url = new URL(targetUrl);
    const keys: KeySet = partner!.keys[pick.environment as 'test' | 'live'];
    let body: string = pick.raw_body;
    let timestamp = Date.now(); // wall clock: the target checks staleness against its own
    if (a.kind === 'stale_timestamp') timestamp -= 10 * 60_000;
    const parts = { clientId: partner!.client_id, timestamp: String(timestamp), method: 'POST', path: url.pathname + url.search, rawBody: body };
    let signature = sign(parts, keys.encryption_key);
    if (a.kind === 'bad_signature') signature = wrongSignature(body);
    if (a.kind === 'tampered_body') body = tamper(body);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'svc-signature': signature,
      'svc-timestamp': String(timestamp),
      'svc-event': pick.event,
      'svc-delivery-id': a.kind === 'duplicate' ? pick.id : `${pick.id}_${a.kind}`,
      'svc-attempt': String(pick.attempts.length + 1),
    };
    let status: number;
    try {
      const res = await httpRequest(url, { method: 'POST', headers, body, timeoutMs: 15_000 });
      status = res.status;
    } catch (error) {
      throw new StepFailure(`the target did not answer ${BUG_NAMES[a.kind]}: ${(error as Error).message}`);
    }
    const want = a.expect_status ?? DEFAULT_DELIVER_EXPECT[a.kind];
    const ok = typeof want === 'number' ? status === want : String(status)[0] === want[0];
    if (!ok) {
      const verb = want === '4xx' || (typeof want === 'number' && want >= 400) ? 'accepted' : 'refused';
      throw new StepFailure(`the target ${verb} ${BUG_NAMES[a.kind]}: it answered ${status}, expected ${want}`, want, status);
    }
  }

  /** Order timelines and deliveries so far: printed with a failure. */
  async function describeOrders(): Promise<string> {
    const lines: string[] = [];
    for (const reference of orders) {
      try {
        const order = await readOrder(reference);
        lines.push(`  order ${reference} (${order.type}) is ${order.status}; timeline:`);
        for (const t of order.timeline) lines.push(`    ${t.created_at}  ${t.group.padEnd(7)} ${t.event}${t.details ? `  ${JSON.stringify(t.details)}` : ''}`);
        const deliveries = await control('GET', `/sandbox/webhooks/deliveries?order=${reference}&per_page=500`);
        const list = ((deliveries.body?.data ?? []) as DeliveryView[]).reverse();
        lines.push(`  deliveries of ${reference}:${list.length ? '' : ' none'}`);
        for (const d of list) {
          lines.push(`    ${d.event.padEnd(22)} ${d.status.padEnd(9)} attempts: ${d.attempts.map((x) => x.http_status ?? x.error).join(', ')}`);
        }
      } catch (error) {
        lines.push(`  order ${reference}: ${(error as Error).message}`);
      }
    }
    return lines.join('\n');
  }

  async function setupPartner(): Promise<void> {
    const settings = {
      events: scenario.partner.events ?? [...WEBHOOK_EVENTS],
      kyb_status: scenario.partner.kyb_status ?? 'approved',
    };
    // The built-in receiver's URL for this scenario is known before the partner exists.
    targetUrl = ctx.targetUrl ?? `${ctx.receiver!.url}/hooks/${ctx.key}`;
    const webhook_url = scenario.partner.webhook ? targetUrl : null;
    if (ctx.identity) {
      partner = ctx.identity;
      const created = await control('POST', '/sandbox/partners', { client_id: partner.client_id, keys: partner.keys, name: scenario.name, ...settings, webhook_url });
      if (created.status === 409) {
        // Reuse: it must hold exactly these keys, which only a signed call can prove.
        const probe = await client.v1('GET', '/v1/orders?per_page=1', partner, env);
        if (probe.status === 401) throw new StepFailure(`partner ${partner.client_id} exists on this sandbox with other keys (${probe.body?.message ?? probe.text})`);
        if (probe.status !== 200) throw new StepFailure(`could not reuse partner ${partner.client_id}: ${probe.status} ${probe.body?.message ?? probe.text}`);
        const patched = await control('PATCH', `/sandbox/partners/${partner.client_id}`, { ...settings, webhook_url });
        if (patched.status !== 200) throw new StepFailure(`could not set the partner up: ${patched.status} ${patched.body?.message ?? patched.text}`);
      } else if (created.status !== 200) {
        throw new StepFailure(`could not provision partner ${partner.client_id}: ${created.status} ${created.body?.message ?? created.text}`);
      }
    } else {
      const created = await control('POST', '/sandbox/partners', { name: `scenario ${scenario.name}`, ...settings, webhook_url });
      if (created.status !== 200) throw new StepFailure(`could not create a partner: ${created.status} ${created.body?.message ?? created.text}`);
      partner = { client_id: created.body.data.client_id, keys: created.body.data.keys };
    }
    ctx.receiver?.register(ctx.key, partner);
    // The identity's public part, for ${partner.client_id}; never its keys (reports print scope).
    scope.set('partner', { client_id: partner.client_id, environment: env });
    scope.set('target', { url: targetUrl });
  }

  let failure: StepResult | undefined;
  try {
    await setupPartner();
  } catch (error) {
    failure = { index: 0, kind: 'setup', label: 'partner setup', ok: false, ms: 0, error: (error as Error).message };
    results.push(failure);
  }
  for (const step of failure ? [] : scenario.steps) {
    ctx.onStep?.(step, step.index);
    const t0 = performance.now();
    const label = step.label ?? step.kind;
    try {
      const expectError = step.expect_error && ((await interpolate(step.expect_error, scope, fake)) as Step['expect_error']);
      await steps[step.kind]({ ...step, expect_error: expectError });
      results.push({ index: step.index, kind: step.kind, label, ok: true, ms: Math.round(performance.now() - t0) });
    } catch (error) {
      const e = error as StepFailure;
      failure = {
        index: step.index,
        kind: step.kind,
        label,
        ok: false,
        ms: Math.round(performance.now() - t0),
        error: error instanceof StepFailure || error instanceof ReferenceError_ ? e.message : `${(error as Error).name}: ${(error as Error).message}`,
        expected: e.expected,
        seen: e.seen,
      };
      results.push(failure);
      break;
    }
  }

  // Faults left in force would hit whatever runs next on this sandbox.
  for (const id of injected) await control('DELETE', `/sandbox/faults/${encodeURIComponent(id)}`).catch(() => undefined);

  // What the scenario's orders went through (for coverage checks), read once at the end.
  const statuses = new Set<string>();
  const events = new Set<string>();
  for (const reference of orders) {
    try {
      const order = await readOrder(reference);
      for (const t of order.timeline) {
        if (t.group === 'status') statuses.add(t.event);
        if (t.group === 'webhook') events.add(t.event);
      }
    } catch {
      // reported with the failure, if any
    }
  }
  return {
    file: scenario.file,
    name: scenario.name,
    ok: !failure,
    ms: Math.round(performance.now() - started),
    steps: results,
    failure,
    context: failure && partner ? await describeOrders() : undefined,
    orders,
    statuses: [...statuses],
    events: [...events],
  };
}

function same(got: unknown, want: unknown): boolean {
  if (typeof got === 'number' && typeof want === 'number') return Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));
  return JSON.stringify(got) === JSON.stringify(want);
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

/** Changes one value in a webhook body, keeping it valid JSON (the signature no longer matches). */
function tamper(body: string): string {
  try {
    const parsed = JSON.parse(body);
    if (parsed?.data && typeof parsed.data === 'object') {
      parsed.data.amount_settled = (Number(parsed.data.amount_settled) || 0) + 1_000_000;
      return JSON.stringify(parsed);
    }
  } catch {
    // fall through
  }
  return `${body} `;
}
