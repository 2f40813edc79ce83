import * as z from 'zod';
import { DURATION_PATTERN, parseDuration } from '../../clock';
import { ENVIRONMENTS } from '../../reference';
import { TEXT_PATTERN } from '../../shared/documented';
import { MAX_GLOB_LENGTH } from './glob';

// One set of rules for every fault field (CONTRACT §12), shared by `POST /sandbox/faults` (and the
// scenario `fault` step) and the faults of a restored state document (CONTRACT §13), so a
// document can hold nothing the route would refuse.
const LatencyMs = z.number().int().min(0).max(120_000);
/** A truncated answer's cut (CONTRACT §22): any body the sandbox sends is far shorter. */
const MAX_TRUNCATE = 1 << 30;
/** A window bound's reach: the clock's own longest advance (CONTRACT §4). */
const MAX_WINDOW_MS = 3650 * 86_400_000;
const Rate = z.number().min(0).max(1);
const FaultFields = {
  client_id: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "only this partner's requests (default: every partner)", example: 'ptr_acme' }),
  environment: z.enum(ENVIRONMENTS).optional(),
  method: z
    .string()
    .regex(/^[A-Za-z]+$/, 'must be an HTTP method')
    .transform((m) => m.toUpperCase())
    .optional()
    .meta({ example: 'POST' }),
  path: z
    .string()
    .max(MAX_GLOB_LENGTH, `must be at most ${MAX_GLOB_LENGTH} characters`)
    .regex(/^\/v1(?:\/|$)/, 'must be a /v1 path glob (faults apply to /v1 only), e.g. /v1/orders or /v1/orders/*')
    .optional()
    .meta({
      // the server's rule (a /v1 path), with text of the Basic Multilingual Plane (see TEXT_PATTERN)
      pattern: `^/v1(?:/${TEXT_PATTERN.slice(1, -1)})?$`,
      description: `glob (at most ${MAX_GLOB_LENGTH} characters): \`*\` one segment, \`**\` any number of segments; the query is ignored`,
      example: '/v1/orders',
    }),
  latency_ms: z
    .union([
      LatencyMs.meta({ description: 'ms added to each matching request', example: 250 }),
      z
        .object({ min: LatencyMs, max: LatencyMs })
        .refine((r) => r.min <= r.max, { message: 'min must not exceed max', path: ['min'] })
        .meta({
          id: 'LatencyRange',
          // JSON Schema cannot compare two fields: the rule is stated here, and the server answers 422 `latency_ms.min: min must not exceed max`.
          description: 'a random latency from min to max ms, each drawn anew; `min` must not exceed `max`',
          'x-constraint': 'min <= max',
          example: { min: 100, max: 500 },
        }),
    ])
    .optional(),
  error: z
    .object({
      status: z
        .union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)])
        .meta({ type: 'integer', enum: [429, 500, 502, 503, 504], example: 503 }),
      rate: Rate.optional().meta({ description: 'the share of matching requests it applies to (default 1)', example: 0.5 }),
    })
    .optional()
    .meta({ id: 'FaultError', example: { status: 503 } }),
  drop: Rate.optional().meta({ description: 'rate (0..1) at which the connection is closed without an answer' }),
  // CONTRACT §22: the kinds a broken network or proxy adds to error, latency and drop.
  reset: Rate.optional().meta({
    description:
      'rate (0..1) at which the connection is reset (TCP RST: the client sees ECONNRESET) once the request is read, with no answer',
    example: 1,
  }),
  truncate: z
    .number('must be a whole number of bytes (0 or more)')
    .int('must be a whole number of bytes (0 or more)')
    .min(0, 'must be a whole number of bytes (0 or more)')
    .max(MAX_TRUNCATE, `must be at most ${MAX_TRUNCATE} bytes`)
    .optional()
    .meta({
      description: 'the answer is cut after N body bytes: its headers promise the whole body (Content-Length), then the connection closes',
      example: 10,
    }),
  malformed: Rate.optional().meta({
    description: 'rate (0..1) at which the answer is a 200 whose body is not JSON, under a JSON content-type (as a broken proxy sends)',
    example: 1,
  }),
  skip: z
    .number('must be a whole number of requests (0 or more)')
    .int('must be a whole number of requests (0 or more)')
    .min(0, 'must be a whole number of requests (0 or more)')
    .max(1_000_000, 'must be at most 1000000')
    .optional()
    .meta({
      description: 'the first N matching requests (inside the window) go through untouched; then the fault applies (and `times` counts)',
      example: 2,
    }),
  times: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .meta({ description: 'applies to the next N requests it takes effect on, then is removed' }),
  note: z.string().max(200, 'must be at most 200 characters').optional().meta({
    description: "a label shown in the injected answer's message (and so in the inspector), e.g. a readiness probe (CONTRACT §21)",
    example: 'readiness probe',
  }),
};

/**
 * A window bound as given (CONTRACT §22): an instant (ISO 8601) or a duration from the virtual now
 * (`parseDuration`'s syntax), at most 10 years ahead.
 */
const IsoInstant = z.iso.datetime({ offset: true });
const WindowBound = z
  .string()
  .max(64, 'must be at most 64 characters')
  .refine(
    (v) => parseDuration(v) !== undefined || IsoInstant.safeParse(v).success,
    'must be an instant (ISO 8601, e.g. 2026-01-15T13:00:00Z) or a duration from the virtual now (90s, 5m, 2h, 1d, 1h30m)',
  )
  .refine((v) => (parseDuration(v) ?? 0) <= MAX_WINDOW_MS, 'must be at most 10 years (3650d) from now')
  .meta({
    // the server's rule: zod's date-time pattern, or a duration as the clock's advance documents it
    pattern: `${IsoInstant.def.pattern?.source}|${DURATION_PATTERN}`,
    description: 'an instant (ISO 8601) or a duration from the virtual now (90s, 5m, 2h, 1d, 1h30m)',
    example: '5m',
  });
/** Two bounds of one form compare without the clock; an instant against a duration is checked when the fault is added. */
const boundsInOrder = (w: { from?: string | undefined; to?: string | undefined }) => {
  if (w.from === undefined || w.to === undefined) return true;
  const [df, dt] = [parseDuration(w.from), parseDuration(w.to)];
  if (df !== undefined && dt !== undefined) return dt > df;
  if (df === undefined && dt === undefined) return Date.parse(w.to) > Date.parse(w.from);
  return true;
};
const WindowInput = z
  .object({ from: WindowBound.optional(), to: WindowBound.optional() })
  .strict()
  .refine((w) => w.from !== undefined || w.to !== undefined, { message: 'give from, to or both', path: ['from'] })
  .refine(boundsInOrder, { message: 'must be after from (the window would be empty)', path: ['to'] })
  .meta({
    id: 'FaultWindowInput',
    anyOf: [{ required: ['from'] }, { required: ['to'] }],
    description:
      'CONTRACT §22: the fault applies only while the virtual clock is inside [from, to); each bound an instant or a duration from now; `to` must be after `from`',
    'x-constraint': 'to > from',
    example: { from: '1m', to: '6m' },
  });
/** A window as a fault holds it: both bounds instants (ISO 8601), resolved when the fault was added. */
const WindowResolved = z
  .object({ from: z.iso.datetime().optional(), to: z.iso.datetime().optional() })
  .strict()
  .refine((w) => w.from !== undefined || w.to !== undefined, { message: 'give from, to or both', path: ['from'] })
  .refine((w) => w.from === undefined || w.to === undefined || Date.parse(w.to) > Date.parse(w.from), {
    message: 'must be after from (the window would be empty)',
    path: ['to'],
  })
  .meta({
    id: 'FaultWindow',
    anyOf: [{ required: ['from'] }, { required: ['to'] }],
    description: 'the virtual instants the fault applies between: from (inclusive) to (exclusive)',
    'x-constraint': 'to > from',
    example: { from: '2026-01-15T12:01:00.000Z', to: '2026-01-15T12:06:00.000Z' },
  });
const Phase = z.enum(['before', 'after']);
/** The fields that make a fault do something (CONTRACT §12, §22). */
const FAULT_KINDS = ['latency_ms', 'error', 'drop', 'reset', 'truncate', 'malformed'] as const;
const hasEffect = (f: Partial<Record<(typeof FAULT_KINDS)[number], unknown>>) => FAULT_KINDS.some((k) => f[k] !== undefined);
const HAS_EFFECT = { message: 'give at least one of latency_ms, error, drop, reset, truncate or malformed', path: ['error'] };
/** The fields that say where, when and how often a fault applies. */
const FAULT_SCOPE = ['client_id', 'environment', 'method', 'path', 'window', 'skip', 'times', 'phase'] as const;
/** The document's form of `hasEffect`. */
const HAS_EFFECT_DOC = { anyOf: FAULT_KINDS.map((k) => ({ required: [k] })) };

/** CONTRACT §12 fault, as created by `POST /sandbox/faults` (and the scenario `fault` step). */
export const FaultInputSchema = z
  .strictObject(
    {
      ...FaultFields,
      window: WindowInput.optional(),
      phase: Phase.optional().meta({
        description: 'before (default): the request is not carried out; after: it is, then the answer is replaced',
      }),
    },
    // A misspelt or unknown kind (`kind: reset`, `truncated: 10`) is refused, never ignored.
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')} (a fault's kinds: ${FAULT_KINDS.join(', ')}; its other fields: ${FAULT_SCOPE.join(', ')})`
          : undefined,
    },
  )
  .refine(hasEffect, HAS_EFFECT)
  .meta({
    id: 'FaultBody',
    description: 'CONTRACT §12, §22: at least one of latency_ms, error, drop, reset, truncate or malformed',
    ...HAS_EFFECT_DOC,
    example: { path: '/v1/orders', method: 'POST', error: { status: 503 }, times: 1 },
  });
export type FaultInput = z.output<typeof FaultInputSchema>;

/** The largest fault serial (ids are `flt_<serial>`): far from where `++` stops counting. */
const MAX_SERIAL = 999_999_999_999_999;
const FAULT_ID = /^flt_([1-9][0-9]{0,14})$/;

/** A fault in force (the same field rules as `FaultInputSchema`), as listed and as a state document holds it. */
export const FaultSchema = z
  .object({
    id: z
      .string()
      .regex(FAULT_ID, 'must be flt_ and a counter (1 to 15 digits), as the sandbox makes fault ids')
      .meta({ example: 'flt_1' }),
    ...FaultFields,
    window: WindowResolved.optional(),
    phase: Phase,
    remaining: z.number().int().min(1).max(1_000_000).nullable().meta({ description: 'applications left (null: unlimited)' }),
    applied: z.number().int().nonnegative(),
    // Absent in a state saved before CONTRACT §22: nothing was skipped then.
    skipped: z
      .number()
      .int()
      .nonnegative()
      .max(1_000_000)
      .default(0)
      .meta({ description: 'matching requests let through so far under `skip`' }),
  })
  .refine(hasEffect, HAS_EFFECT)
  .refine((f) => f.skipped <= (f.skip ?? 0), { message: 'must not exceed skip', path: ['skipped'] })
  .refine((f) => (f.times === undefined ? f.remaining === null : f.remaining !== null && f.remaining <= f.times), {
    message: 'must be null without times, and from 1 to times with it',
    path: ['remaining'],
  })
  .meta({ id: 'Fault' });
export type Fault = z.output<typeof FaultSchema>;

/** The number in a fault id `flt_<n>` (0 for anything else). */
export function faultIdNumber(id: string): number {
  const m = FAULT_ID.exec(id);
  return m ? Number(m[1]) : 0;
}

/** The faults of a state document (CONTRACT §13): the serial is never behind a stored fault id. */
export const FaultsStateSchema = z
  .object({
    faults: z.array(FaultSchema),
    serial: z.number().int().min(0).max(MAX_SERIAL),
    rng_state: z.number().int().min(0).max(0xffff_ffff),
  })
  .superRefine((state, ctx) => {
    const top = state.faults.reduce((max, f) => Math.max(max, faultIdNumber(f.id)), 0);
    if (state.serial < top) {
      ctx.addIssue({
        code: 'custom',
        path: ['serial'],
        message: `is ${state.serial}, behind fault id flt_${top}: must be at least ${top} (new fault ids would clash)`,
      });
    }
  });
export type FaultsState = z.output<typeof FaultsStateSchema>;
