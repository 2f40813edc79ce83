import { readFileSync, statSync } from 'node:fs';
import { nonFiniteNumberAt } from '../../shared/json-numbers';
import { parseDocument } from 'yaml';
import * as z from 'zod';
import { parseDuration } from '../../clock';
import { ORDER_STATUSES, PAYOUT_OUTCOMES } from '../../orders/model';
import { ERROR_CODES } from '../../shared/errors';
import { WEBHOOK_EVENTS } from '../../shared/events';
import { KybStatusSchema } from '../../auth/partner.schemas';
import { ENVIRONMENTS } from '../../reference';
import { DeliveryStatusSchema } from '../../webhooks/delivery.schemas';
import { firstIssue } from '../../shared/validation';
import { FaultInputSchema } from '../../http/faults/fault.schemas';

/** A `${...}` reference, resolved when the step runs. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the message names the script's ${...} syntax, not a template
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

/** `fault: {clear: true}` removes every fault the scenario injected; `clear: f` the one named f. */
const ClearFaultsSchema = z
  .object({
    clear: z.union([z.literal(true), Name, Ref], 'must be true (every fault this scenario injected) or the name of an earlier fault step'),
  })
  .strict();
const StrictFaultInput = FaultInputSchema.strict();

/**
 * The `fault` step: exactly the body of `POST /sandbox/faults` (CONTRACT §12), or `{clear}`.
 * Picked by the presence of `clear`, so an issue names the field of the shape that was meant.
 */
const FaultStepSchema = z.unknown().transform((value, ctx) => {
  const clearing = typeof value === 'object' && value !== null && 'clear' in value;
  const parsed = clearing ? ClearFaultsSchema.safeParse(value) : StrictFaultInput.safeParse(value);
  if (parsed.success) return parsed.data as z.output<typeof ClearFaultsSchema> | z.output<typeof StrictFaultInput>;
  for (const issue of parsed.error.issues) {
    // An unknown key is named by its own path, like every other wrong field.
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    ctx.addIssue({ code: 'custom', message: issue.message, path });
  }
  return z.NEVER;
});

/** A step of two shapes, told apart by `key`'s presence, so an issue names the field of the shape meant (as `fault`). */
function pickedBy<A extends z.ZodType, B extends z.ZodType>(key: string, withKey: A, without: B) {
  return z.unknown().transform((value, ctx) => {
    const keyed = typeof value === 'object' && value !== null && key in value;
    const parsed = keyed ? withKey.safeParse(value) : without.safeParse(value);
    if (parsed.success) return parsed.data as z.output<A> | z.output<B>;
    for (const issue of parsed.error.issues) {
      const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
      ctx.addIssue({ code: 'custom', message: issue.message, path });
    }
    return z.NEVER;
  });
}

/**
 * The `rates` step (CONTRACT §22): the body of `POST /sandbox/rates` (`pair`, `path` of `{at, rate}`),
 * or `{remove: PAIR}`; the route judges the values (a step may expect its error).
 */
const RatesStepSchema = pickedBy(
  'remove',
  z.object({ remove: z.string().min(1) }).strict(),
  z
    .object({
      pair: z.string().min(1),
      path: z.array(z.object({ at: z.string().min(1), rate: z.union([z.number(), Ref]) }).strict()).min(1),
    })
    .strict(),
);

/** The `webhook_chaos` step (CONTRACT §22): the body of `PUT /sandbox/partners/{client_id}/webhook-chaos` for the scenario's partner, or `{remove: true}`. */
const WebhookChaosStepSchema = pickedBy(
  'remove',
  z.object({ remove: z.literal(true) }).strict(),
  z
    .object({
      duplicate_rate: z.number().optional(),
      reorder_window: z.string().optional(),
      delay: z.object({ min: z.string(), max: z.string() }).strict().optional(),
    })
    .strict(),
);

/** The answer a target must give: an exact status, or a class such as `4xx`. */
const StatusExpectation = z.union([z.number().int().min(100).max(599), z.enum(['2xx', '4xx', '5xx'])]);

/**
 * Every step's fields, strict: a misspelled one (`feilds`, `amout`, `expect_stats`) was dropped,
 * and its check silently passed; it is refused with the file, step and field before anything runs.
 */
export const STEP_SCHEMAS = {
  quote: z.strictObject({ from: Body, to: Body, partner_fee: z.union([z.number(), Ref]).optional() }),
  order: Body,
  expect: z
    .strictObject({
      order: OrderRef.optional(),
      status: Status.optional(),
      statuses: z.array(Status).min(1).optional(),
      fields: z.record(z.string(), z.unknown()).optional(),
      webhooks: z.strictObject({ events: z.array(Event), in_order: z.boolean().default(true) }).optional(),
      delivery: z
        .strictObject({ event: Event, status: DeliveryStatusSchema.optional(), min_attempts: z.number().int().positive().optional() })
        .optional(),
    })
    .refine(
      (e) => e.status || e.statuses || e.fields || e.webhooks || e.delivery,
      'give at least one of status, statuses, fields, webhooks, delivery',
    )
    .refine((e) => e.order !== undefined || !(e.status || e.statuses || e.webhooks || e.delivery), {
      message: 'required for status, statuses, webhooks and delivery checks',
      path: ['order'],
    }),
  payin: z.strictObject({
    order: OrderRef,
    amount: z
      .union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?%$/, 'must be a number or a percentage of what is due, e.g. 50%'), Ref])
      .optional(),
    confirmed: z.boolean().optional(),
    tx_hash: z.string().optional(),
    tx_reference: z.string().optional(),
  }),
  fulfil: z.strictObject({
    order: OrderRef,
    tx_hash: z.string().optional(),
    reference: z.string().optional(),
    institution: z.string().optional(),
  }),
  payout: z.strictObject({ order: OrderRef, outcome: z.enum(PAYOUT_OUTCOMES), percentage: z.number().gt(0).lt(100).optional() }),
  cancel: z.strictObject({ order: OrderRef, reason: z.string().optional() }),
  advance: z.union(
    [
      z.strictObject({ duration: Duration }).strict(),
      z.strictObject({ until: z.strictObject({ order: OrderRef, status: Status }), within: Duration }).strict(),
    ],
    { error: 'give duration, or until {order, status} with within' },
  ),
  expire: z.strictObject({ order: OrderRef }),
  simulate: z.strictObject({ order: OrderRef, status: Status, reason: z.string().optional() }),
  deliver: z.strictObject({
    order: OrderRef,
    kind: z.enum(ADVERSARIAL_KINDS),
    event: Event.optional(),
    expect_status: StatusExpectation.optional(),
  }),
  fault: FaultStepSchema,
  rates: RatesStepSchema,
  webhook_chaos: WebhookChaosStepSchema,
  find: z
    .strictObject({
      merchant_reference: z.string().min(1).optional(),
      customer_reference: z.string().min(1).optional(),
      status: Status.optional(),
      count: z.number().int().min(0).default(1),
    })
    .strict()
    .refine(
      (f) => f.merchant_reference !== undefined || f.customer_reference !== undefined || f.status !== undefined,
      'give merchant_reference, customer_reference or status',
    ),
  partner: z
    .strictObject({
      webhook_url: z.union([z.enum(['target', 'down']), z.url(), z.null()]).optional(),
      events: z.array(Event).optional(),
      kyb_status: KybStatusSchema.optional(),
    })
    .refine((p) => Object.keys(p).length > 0, 'give webhook_url, events or kyb_status'),
} as const;

export type StepKind = keyof typeof STEP_SCHEMAS;
export const STEP_KINDS = Object.keys(STEP_SCHEMAS) as StepKind[];

const ExpectErrorSchema = z
  .object({
    status: z.number().int().min(400).max(599).optional(),
    code: z.enum(ERROR_CODES).optional(),
    /** A substring of the error's message; may hold `${...}`. */
    message: z.string().optional(),
    /** The connection is closed without a whole answer (an injected `drop`, `reset` or `truncate`, CONTRACT §12, §22). */
    dropped: z.literal(true).optional(),
    /** A 2xx answer whose body is not JSON (an injected `malformed`, CONTRACT §22). */
    malformed: z.literal(true).optional(),
  })
  .strict()
  .refine((e) => !e.dropped || (e.status === undefined && e.code === undefined && e.message === undefined && e.malformed === undefined), {
    message: 'a dropped connection has no status, code or message: give dropped alone',
    path: ['dropped'],
  })
  .refine((e) => !e.malformed || (e.status === undefined && e.code === undefined && e.message === undefined), {
    message: 'a malformed answer has no error status, code or message: give malformed alone',
    path: ['malformed'],
  });

/**
 * Steps that would ignore `expect_error`: they judge what they read themselves. `find` takes it
 * (CONTRACT §22): its read may be the one a fault cuts, drops or answers with an error.
 */
const NO_EXPECTED_ERROR: readonly string[] = ['expect', 'deliver'];

/** Steps whose result `as:` can name. */
const NAMED_RESULTS: readonly string[] = ['quote', 'order', 'fault', 'find'];

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

const ScenarioHeadSchema = z.strictObject({
  name: z.string().min(1).max(200, 'must be at most 200 characters'),
  description: z.string().optional(),
  environment: z.enum(ENVIRONMENTS).default('test'),
  partner: z
    .strictObject({
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

const COMMON_KEYS: ReadonlySet<string> = new Set(['as', 'name', 'expect_error']);

/** Parses and validates a scenario document (YAML text). */
export function parseScenario(text: string, file: string): Scenario {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = e.linePos?.[0]?.line;
    throw new ScenarioFileError(file, undefined, undefined, `YAML${line ? ` line ${line}` : ''}: ${e.message.split('\n')[0]}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS();
  } catch (error) {
    // yaml refuses an alias bomb ("billion laughs") here: Excessive alias count …
    throw new ScenarioFileError(file, undefined, undefined, `YAML: ${(error as Error).message}`);
  }
  const notFinite = nonFiniteNumberAt(raw);
  if (notFinite !== undefined) {
    const [first, second] = notFinite.split('.');
    const step = first === 'steps' && /^[0-9]+$/.test(second ?? '') ? Number(second) + 1 : undefined;
    throw new ScenarioFileError(file, step, notFinite, 'is not a finite number (JSON cannot carry it): write a number such as 1e12');
  }
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
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      fail(`steps.${i}`, 'a step must be a mapping such as {payin: {order: o}}');
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
    if (record.as !== undefined && !NAMED_RESULTS.includes(kind))
      fail(`steps.${i}.as`, `only ${NAMED_RESULTS.join(', ')} steps give a result to name`);
    if (record.expect_error !== undefined && NO_EXPECTED_ERROR.includes(kind))
      fail(
        `steps.${i}.expect_error`,
        `a ${kind} step checks what it reads itself; expect_error applies to steps that send a request (${STEP_KINDS.filter((k) => !NO_EXPECTED_ERROR.includes(k)).join(', ')})`,
      );
    const expectError = record.expect_error === undefined ? undefined : ExpectErrorSchema.safeParse(record.expect_error);
    if (expectError && !expectError.success) {
      const issue = firstIssue(expectError.error, `steps.${i}.expect_error`);
      fail(issue.path, issue.message);
    }
    // Every reference must name something an earlier step defined: caught before anything runs.
    const refs = [...references(record[kind], `steps.${i}.${kind}`), ...references(record.expect_error, `steps.${i}.expect_error`)];
    for (const [path, name] of refs) {
      if (!defined.has(name))
        fail(
          path,
          `missing reference ${name}: no earlier step is named ${name} (defined: ${[...defined].filter((d) => !['fake', 'partner', 'target'].includes(d)).join(', ') || 'none'})`,
        );
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

/** The most a scenario file may hold: a script, not data (the shipped ones are under 4 KiB). */
export const MAX_SCENARIO_BYTES = 1024 * 1024;

/**
 * A file of at most `maxBytes` bytes as UTF-8 text: a ScenarioFileError for a folder or a device
 * (`/dev/zero` is never done) or a larger file; a file that cannot be read throws as `fs` does.
 */
export function readSmallFile(path: string, maxBytes = MAX_SCENARIO_BYTES): string {
  const stats = statSync(path);
  if (!stats.isFile()) throw new ScenarioFileError(path, undefined, undefined, 'is not a file');
  if (stats.size > maxBytes)
    throw new ScenarioFileError(
      path,
      undefined,
      undefined,
      `is ${stats.size} bytes: at most ${maxBytes} are read (a scenario is a script, not data)`,
    );
  return readFileSync(path, 'utf8');
}

/** Reads and validates one scenario file. */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readSmallFile(path);
  } catch (error) {
    if (error instanceof ScenarioFileError) throw error;
    throw new ScenarioFileError(path, undefined, undefined, (error as Error).message);
  }
  return parseScenario(text, path);
}

const ORDER_KEYS: ReadonlySet<string> = new Set(['order', 'quote', 'clear']);

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
      if (ORDER_KEYS.has(k) && typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) yield [`${path}.${k}`, v];
      else yield* references(v, `${path}.${k}`);
    }
  }
}
