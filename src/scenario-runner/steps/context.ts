import type { Environment } from '../../reference';
import type { DeliveryView, OrderView, PartnerApi, PartnerIdentity, SandboxClient } from '../client';
import { dataOf, StepFailure } from '../failure';
import { interpolate, type FakeHelpers } from '../interpolate';
import type { BuiltInReceiver } from '../receiver';
import type { Step, StepKind } from '../schema';

/** The step of one kind, with its arguments typed by that kind's zod schema. */
export type StepOf<K extends StepKind> = Extract<Step, { kind: K }>;

/** Plays one kind of step; throws a StepFailure when it fails. */
export type StepHandler<K extends StepKind> = (step: StepOf<K>, ctx: StepContext) => Promise<void>;

/** What every step handler works with: the sandbox's API and the scenario's state so far. */
export interface StepContext {
  client: SandboxClient;
  /** /v1 as the scenario's partner. */
  api: PartnerApi;
  partner: PartnerIdentity;
  env: Environment;
  /** Where the partner's webhooks go: --target or the built-in receiver's path. */
  targetUrl: string;
  receiver?: BuiltInReceiver;
  /** The run's key in the built-in receiver. */
  key: string;
  /** Named results (`as:`), `partner` and `target`. */
  scope: Map<string, unknown>;
  fake: FakeHelpers;
  /** References of the orders the scenario knows, in the order it learnt them. */
  orders: string[];
  /** Faults the scenario injected and has not removed: removed when it ends. */
  faults: Set<string>;
  /** Resolves every `${...}` in a value. */
  resolve<T>(value: T): Promise<T>;
  /** An order reference from a name (`o`), a `${...}` or a literal reference. */
  referenceOf(value: unknown): Promise<string>;
  readOrder(reference: string): Promise<OrderView>;
  /** The order's deliveries, oldest first, once no attempt is in flight. */
  deliveriesOf(reference: string): Promise<DeliveryView[]>;
}

/** Builds the context of one scenario run. */
export function createStepContext(base: Omit<StepContext, 'resolve' | 'referenceOf' | 'readOrder' | 'deliveriesOf'>): StepContext {
  const ctx: StepContext = {
    ...base,
    resolve: async (value) => (await interpolate(value, ctx.scope, ctx.fake)) as typeof value,
    async referenceOf(value) {
      const v = typeof value === 'string' && ctx.scope.has(value) ? ctx.scope.get(value) : await ctx.resolve(value);
      const ref = typeof v === 'string' ? v : (v as { reference?: unknown })?.reference;
      if (typeof ref !== 'string') throw new StepFailure(`cannot find an order reference in ${JSON.stringify(value)}`);
      return ref;
    },
    async readOrder(reference) {
      return dataOf(`GET /v1/orders/${reference}`, await ctx.api.getOrder(reference));
    },
    async deliveriesOf(reference) {
      // Let attempts in flight land before judging what was delivered.
      for (let i = 0; i < 400; i++) {
        const res = await ctx.client.deliveries(reference);
        const list = res.ok ? res.data : [];
        // A readiness run's probes (CONTRACT §21) are not the order's lifecycle: a scenario never judges them.
        if (!list.some((d) => d.in_flight)) return list.filter((d) => d.source !== 'probe').reverse();
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new StepFailure(`deliveries for ${reference} still in flight after 10 s`);
    },
  };
  return ctx;
}
