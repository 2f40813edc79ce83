import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { parseDuration } from '../clock';
import { ORDER_STATUSES } from '../orders/order.machine';
import { ERROR_CODES } from '../shared/errors';
import { WEBHOOK_EVENTS } from '../shared/events';
import { KybStatusSchema } from '../auth/partner.schemas';
import { ENVIRONMENTS } from '../reference';
import { DeliveryStatusSchema } from '../webhooks/delivery.schemas';
import { firstIssue } from '../shared/validation';

/** A `${...}` reference, resolved when the step runs. */
const Ref = z.string().regex(/^\$\{[^}]+\}$/, 'must be a ${...} reference');
/** A name given by an earlier step's `as`. */
const Name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a name given by an earlier step (as: name)');
const OrderRef = z.union([Name, Ref]);
const Duration = z.string().refine((d) => parseDuration(d) !== undefined, 'must be a duration such as 90s, 5m, 2h, 1d or 1h30m');
const Status = z.enum(ORDER_STATUSES);
const Event = z.enum(WEBHOOK_EVENTS);
const Body = z.record(z.string(), z.unknown(), 'must be a mapping');

export const ADVERSARIAL_KINDS = ['bad_signature', 'stale_timestamp', 'tampered_body', 'duplicate', 'out_of_order'] as const;
export type AdversarialKind = (typeof ADVERSARIAL_KINDS)[number];

/** The answer a target must give: an exact status, or a class such as `4xx`. */
const StatusExpectation = z.union([z.number().int().min(100).max(599), z.enum(['2xx', '4xx', '5xx'])]);

export const STEP_SCHEMAS = {
  quote: z.object({ from: Body, to: Body, partner_fee: z.union([z.number(), Ref]).optional() }),
  order: Body,
  expect: z
    .object({
      order: OrderRef.optional(),
      status: Status.optional(),
      statuses: z.array(Status).min(1).optional(),
      fields: z.record(z.string(), z.unknown()).optional(),
      webhooks: z.object({ events: z.array(Event), in_order: z.boolean().default(true) }).optional(),
      delivery: z.object({ event: Event, status: DeliveryStatusSchema.optional(), min_attempts: z.number().int().positive().optional() }).optional(),
    })
    .refine((e) => e.status || e.statuses || e.fields || e.webhooks || e.delivery, 'give at least one of status, statuses, fields, webhooks, delivery')
    .refine((e) => e.order !== undefined || !(e.status || e.statuses || e.webhooks || e.delivery), { message: 'required for status, statuses, webhooks and delivery checks', path: ['order'] }),
  payin: z.object({
    order: OrderRef,
    amount: z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?%$/, 'must be a number or a percentage of what is due, e.g. 50%'), Ref]).optional(),
    confirmed: z.boolean().optional(),
    tx_hash: z.string().optional(),
    tx_reference: z.string().optional(),
  }),
  fulfil: z.object({ order: OrderRef, tx_hash: z.string().optional(), reference: z.string().optional(), institution: z.string().optional() }),
  payout: z.object({ order: OrderRef, outcome: z.enum(['success', 'fail', 'revert', 'partial']), percentage: z.number().gt(0).lt(100).optional() }),
  cancel: z.object({ order: OrderRef, reason: z.string().optional() }),
  advance: z.union([
    z.object({ duration: Duration }).strict(),
    z.object({ until: z.object({ order: OrderRef, status: Status }), within: Duration }).strict(),
  ], { error: 'give duration, or until {order, status} with within' }),
  expire: z.object({ order: OrderRef }),
  deliver: z.object({
    order: OrderRef,
    kind: z.enum(ADVERSARIAL_KINDS),
    event: Event.optional(),
    expect_status: StatusExpectation.optional(),
  }),
  partner: z
    .object({
      webhook_url: z.union([z.enum(['target', 'down']), z.url(), z.null()]).optional(),
      events: z.array(Event).optional(),
      kyb_status: KybStatusSchema.optional(),
    })
    .refine((p) => Object.keys(p).length > 0, 'give webhook_url, events or kyb_status'),
} as const;

export type StepKind = keyof typeof STEP_SCHEMAS;
export const STEP_KINDS = Object.keys(STEP_SCHEMAS) as StepKind[];

const ExpectErrorSchema = z.object({
  status: z.number().int().min(400).max(599).optional(),
  code: z.enum(ERROR_CODES).optional(),
  message: z.string().optional(),
});

export type Step = {
  [K in StepKind]: {
    kind: K;
    index: number;
    args: z.output<(typeof STEP_SCHEMAS)[K]>;
    as?: string;
    label?: string;
    expect_error?: z.output<typeof ExpectErrorSchema>;
  };
}[StepKind];

const ScenarioHeadSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  environment: z.enum(ENVIRONMENTS).default('test'),
  partner: z
    .object({
      events: z.array(Event).optional(),
      kyb_status: KybStatusSchema.optional(),
      /** Point the partner's webhook_url at the target (default true). */
      webhook: z.boolean().default(true),
    })
    .default({ webhook: true }),
  steps: z.array(z.unknown()).min(1),
});

export type Scenario = Omit<z.output<typeof ScenarioHeadSchema>, 'steps'> & { file: string; steps: Step[] };

/** A scenario file that cannot run: says the file, the step number and the field. */
export class ScenarioFileError extends Error {
  override name = 'ScenarioFileError';
  constructor(
    readonly file: string,
    readonly step: number | undefined,
    readonly field: string | undefined,
    readonly reason: string,
  ) {
    super(`${file}${step ? `: step ${step}` : ''}${field ? `: ${field}` : ''}: ${reason}`);
  }
}

const COMMON_KEYS = new Set(['as', 'name', 'expect_error']);

/** Parses and validates a scenario document (YAML text). */
export function parseScenario(text: string, file: string): Scenario {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = e.linePos?.[0]?.line;
    throw new ScenarioFileError(file, undefined, undefined, `YAML${line ? ` line ${line}` : ''}: ${e.message.split('\n')[0]}`);
  }
  const raw: unknown = doc.toJS();
  const head = ScenarioHeadSchema.safeParse(raw);
  if (!head.success) {
    const issue = firstIssue(head.error);
    const [first, second] = issue.segments;
    const step = first === 'steps' && typeof second === 'number' ? second + 1 : undefined;
    throw new ScenarioFileError(file, step, issue.path || '(root)', issue.message);
  }
  const defined = new Set<string>(['fake', 'partner', 'target']);
  const steps: Step[] = head.data.steps.map((value, i) => {
    const n = i + 1;
    const fail = (field: string | undefined, reason: string): never => {
      throw new ScenarioFileError(file, n, field, reason);
    };
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(`steps.${i}`, 'a step must be a mapping such as {payin: {order: o}}');
    const record = value as Record<string, unknown>;
    const kinds = Object.keys(record).filter((k) => !COMMON_KEYS.has(k));
    if (kinds.length !== 1 || !STEP_KINDS.includes(kinds[0] as StepKind)) {
      fail(`steps.${i}`, `give exactly one step kind (${STEP_KINDS.join(', ')}); found ${kinds.join(', ') || 'none'}`);
    }
    const kind = kinds[0] as StepKind;
    const parsed = STEP_SCHEMAS[kind].safeParse(record[kind]);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error, `steps.${i}.${kind}`);
      fail(issue.path, issue.message);
    }
    const as = record.as === undefined ? undefined : Name.safeParse(record.as);
    if (as && !as.success) fail(`steps.${i}.as`, 'must be a name of letters, digits and _');
    if (record.as !== undefined && kind !== 'quote' && kind !== 'order') fail(`steps.${i}.as`, 'only quote and order steps give a result to name');
    const expectError = record.expect_error === undefined ? undefined : ExpectErrorSchema.safeParse(record.expect_error);
    if (expectError && !expectError.success) {
      const issue = firstIssue(expectError.error, `steps.${i}.expect_error`);
      fail(issue.path, issue.message);
    }
    // Every reference must name something an earlier step defined: caught before anything runs.
    for (const [path, name] of references(record[kind], `steps.${i}.${kind}`)) {
      if (!defined.has(name)) fail(path, `missing reference ${name}: no earlier step is named ${name} (defined: ${[...defined].filter((d) => !['fake', 'partner', 'target'].includes(d)).join(', ') || 'none'})`);
    }
    if (as?.success) defined.add(as.data);
    return {
      kind,
      index: n,
      args: parsed.data,
      as: as?.success ? as.data : undefined,
      label: typeof record.name === 'string' ? record.name : undefined,
      expect_error: expectError?.success ? expectError.data : undefined,
    } as Step;
  });
  return { file, ...head.data, steps } as Scenario;
}

/** Reads and validates one scenario file. */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioFileError(path, undefined, undefined, (error as Error).message);
  }
  return parseScenario(text, path);
}

const ORDER_KEYS = new Set(['order']);

/** The names a step's arguments refer to: `${name...}` anywhere, and bare `order: name`. */
function* references(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') {
    for (const m of value.matchAll(/\$\{\s*([A-Za-z_][A-Za-z0-9_]*)/g)) yield [path, m[1]!];
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* references(value[i], `${path}.${i}`);
    return;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if ((ORDER_KEYS.has(k) || k === 'quote') && typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) yield [`${path}.${k}`, v];
      else yield* references(v, `${path}.${k}`);
    }
  }
}
