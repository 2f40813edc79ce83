import type { PartnerIdentity, SandboxClient } from './partner/client';
import { dataOf, StepFailure } from './script/failure';
import { createFakeHelpers, ReferenceError_ } from './script/interpolate';
import type { BuiltInReceiver } from './partner/receiver';
import { setupPartner } from './partner-setup';
import type { Scenario, Step } from './script/schema';
import { createStepContext, STEP_HANDLERS, type StepContext } from './steps';

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
  /** Called before each step; a returned promise is awaited (tests look at the sandbox between steps). */
  onStep?: (step: Step, index: number) => void | Promise<void>;
}

/** Runs one scenario against a sandbox, through its HTTP API only; never throws for a failing step. */
export async function runScenario(scenario: Scenario, run: RunContext): Promise<ScenarioResult> {
  const started = performance.now();
  const { client } = run;
  const env = scenario.environment;
  const results: StepResult[] = [];
  // The built-in receiver's URL for this scenario is known before the partner exists.
  const targetUrl = run.targetUrl ?? `${run.receiver!.url}/hooks/${run.key}`;

  let ctx: StepContext | undefined;
  let failure: StepResult | undefined;
  try {
    const partner = await setupPartner(scenario, client, { targetUrl, identity: run.identity });
    run.receiver?.register(run.key, partner);
    const api = client.as(partner, env);
    const fake = createFakeHelpers(run.seed, {
      async format(network) {
        const format = (await api.addressFormats()).get(network);
        if (!format) throw new StepFailure(`unknown network ${network} in the ${env} environment`);
        return format;
      },
      async accountName(bankCode, accountNumber) {
        const res = await api.accountLookup(bankCode, accountNumber);
        if (res.status !== 200)
          throw new StepFailure(`account lookup at ${bankCode} answered ${res.status}: ${res.body?.message ?? res.text}`);
        return res.body.data.account_name;
      },
    });
    // The identity's public part, for ${partner.client_id}; never its keys (reports print scope).
    const scope = new Map<string, unknown>([
      ['partner', { client_id: partner.client_id, environment: env }],
      ['target', { url: targetUrl }],
    ]);
    ctx = createStepContext({
      client,
      api,
      partner,
      env,
      targetUrl,
      receiver: run.receiver,
      key: run.key,
      scope,
      fake,
      orders: [],
      faults: new Set(),
      rates: new Set(),
      chaos: { set: false },
    });
  } catch (error) {
    failure = { index: 0, kind: 'setup', label: 'partner setup', ok: false, ms: 0, error: (error as Error).message };
    results.push(failure);
  }

  for (const step of ctx ? scenario.steps : []) {
    await run.onStep?.(step, step.index);
    const t0 = performance.now();
    const label = step.label ?? step.kind;
    try {
      const expectError = step.expect_error && (await ctx!.resolve(step.expect_error));
      await (STEP_HANDLERS[step.kind] as (s: Step, c: StepContext) => Promise<void>)({ ...step, expect_error: expectError }, ctx!);
      results.push({ index: step.index, kind: step.kind, label, ok: true, ms: Math.round(performance.now() - t0) });
    } catch (error) {
      const e = error as StepFailure;
      failure = {
        index: step.index,
        kind: step.kind,
        label,
        ok: false,
        ms: Math.round(performance.now() - t0),
        error:
          error instanceof StepFailure || error instanceof ReferenceError_
            ? e.message
            : `${(error as Error).name}: ${(error as Error).message}`,
        expected: e.expected,
        seen: e.seen,
      };
      results.push(failure);
      break;
    }
  }

  // Faults left in force would hit whatever runs next on this sandbox.
  for (const id of ctx?.faults ?? []) await client.removeFault(id).catch(() => undefined);
  // So are rate scripts and webhook chaos (CONTRACT §22).
  for (const pair of ctx?.rates ?? []) await client.removeRateScript(pair).catch(() => undefined);
  if (ctx?.chaos.set) await client.removeWebhookChaos(ctx.partner.client_id).catch(() => undefined);

  // What the scenario's orders went through (for coverage checks), read once at the end.
  const statuses = new Set<string>();
  const events = new Set<string>();
  for (const reference of ctx?.orders ?? []) {
    try {
      const order = await ctx!.readOrder(reference);
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
    context: failure && ctx ? await describeOrders(ctx) : undefined,
    orders: ctx?.orders ?? [],
    statuses: [...statuses],
    events: [...events],
  };
}

/** Order timelines and deliveries so far: printed with a failure. */
async function describeOrders(ctx: StepContext): Promise<string> {
  const lines: string[] = [];
  for (const reference of ctx.orders) {
    try {
      const order = await ctx.readOrder(reference);
      lines.push(`  order ${reference} (${order.type}) is ${order.status}; timeline:`);
      for (const t of order.timeline)
        lines.push(`    ${t.created_at}  ${t.group.padEnd(7)} ${t.event}${t.details ? `  ${JSON.stringify(t.details)}` : ''}`);
      const list = dataOf('GET /sandbox/webhooks/deliveries', await ctx.client.deliveries(reference)).reverse();
      lines.push(`  deliveries of ${reference}:${list.length ? '' : ' none'}`);
      for (const d of list) {
        lines.push(
          `    ${d.event.padEnd(22)} ${d.status.padEnd(9)} attempts: ${d.attempts.map((x) => x.http_status ?? x.error).join(', ')}`,
        );
      }
    } catch (error) {
      lines.push(`  order ${reference}: ${(error as Error).message}`);
    }
  }
  return lines.join('\n');
}
