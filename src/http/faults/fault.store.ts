import * as z from 'zod';
import { ENVIRONMENTS, type Environment } from '../../reference';
import { TEXT_PATTERN } from '../../shared/documented';
import { compileGlob, MAX_GLOB_LENGTH, type CompiledGlob } from './glob';

// One set of rules for every fault field (CONTRACT §12), shared by `POST /sandbox/faults` (and the
// scenario `fault` step) and the faults of a restored state document (CONTRACT §13), so a
// document can hold nothing the route would refuse.
const LatencyMs = z.number().int().min(0).max(120_000);
const Rate = z.number().min(0).max(1);
const FaultFields = {
  client_id: z.string().min(1).optional().meta({ description: 'only this partner\'s requests (default: every partner)', example: 'ptr_acme' }),
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
      status: z.union([z.literal(429), z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).meta({ type: 'integer', enum: [429, 500, 502, 503, 504], example: 503 }),
      rate: Rate.optional().meta({ description: 'the share of matching requests it applies to (default 1)', example: 0.5 }),
    })
    .optional()
    .meta({ id: 'FaultError', example: { status: 503 } }),
  drop: Rate.optional().meta({ description: 'rate (0..1) at which the connection is closed without an answer' }),
  times: z.number().int().min(1).max(1_000_000).optional().meta({ description: 'applies to the next N requests it takes effect on, then is removed' }),
  note: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .meta({ description: 'a label shown in the injected answer\'s message (and so in the inspector), e.g. a readiness probe (CONTRACT §21)', example: 'readiness probe' }),
};
const Phase = z.enum(['before', 'after']);
const hasEffect = (f: { latency_ms?: unknown; error?: unknown; drop?: unknown }) => f.latency_ms !== undefined || f.error !== undefined || f.drop !== undefined;
const HAS_EFFECT = { message: 'give at least one of latency_ms, error or drop', path: ['error'] };
/** The document's form of `hasEffect`. */
const HAS_EFFECT_DOC = { anyOf: [{ required: ['latency_ms'] }, { required: ['error'] }, { required: ['drop'] }] };

/** CONTRACT §12 fault, as created by `POST /sandbox/faults` (and the scenario `fault` step). */
export const FaultInputSchema = z
  .object({
    ...FaultFields,
    phase: Phase.optional().meta({ description: 'before (default): the request is not carried out; after: it is, then the answer is replaced' }),
  })
  .refine(hasEffect, HAS_EFFECT)
  .meta({ id: 'FaultBody', description: 'CONTRACT §12: at least one of latency_ms, error or drop', ...HAS_EFFECT_DOC, example: { path: '/v1/orders', method: 'POST', error: { status: 503 }, times: 1 } });
export type FaultInput = z.output<typeof FaultInputSchema>;

/** The largest fault serial (ids are `flt_<serial>`): far from where `++` stops counting. */
const MAX_SERIAL = 999_999_999_999_999;
const FAULT_ID = /^flt_([1-9][0-9]{0,14})$/;

/** A fault in force (the same field rules as `FaultInputSchema`), as listed and as a state document holds it. */
export const FaultSchema = z
  .object({
    id: z.string().regex(FAULT_ID, 'must be flt_ and a counter (1 to 15 digits), as the sandbox makes fault ids').meta({ example: 'flt_1' }),
    ...FaultFields,
    phase: Phase,
    remaining: z.number().int().min(1).max(1_000_000).nullable().meta({ description: 'applications left (null: unlimited)' }),
    applied: z.number().int().nonnegative(),
  })
  .refine(hasEffect, HAS_EFFECT)
  .refine((f) => (f.times === undefined ? f.remaining === null : f.remaining !== null && f.remaining <= f.times), {
    message: 'must be null without times, and from 1 to times with it',
    path: ['remaining'],
  })
  .meta({ id: 'Fault' });
export type Fault = z.output<typeof FaultSchema>;

/** The number in a fault id `flt_<n>` (0 for anything else). */
function faultIdNumber(id: string): number {
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
      ctx.addIssue({ code: 'custom', path: ['serial'], message: `is ${state.serial}, behind fault id flt_${top}: must be at least ${top} (new fault ids would clash)` });
    }
  });
export type FaultsState = z.output<typeof FaultsStateSchema>;

/** What a fault does to one request, decided when it matches. */
export interface FaultEffect {
  fault: Fault;
  phase: 'before' | 'after';
  latencyMs: number;
  /** The injected answer's status, or undefined for latency only. */
  errorStatus?: number;
  drop: boolean;
}

export interface FaultRequest {
  clientId: string;
  env: Environment;
  method: string;
  path: string;
}

/**
 * Injected faults (CONTRACT §12). The first fault (in creation order) that matches a request
 * and takes effect decides what happens to it. Rates draw from a seeded generator, so a run
 * with the same seed and the same requests injects the same faults.
 */
export class FaultStore {
  private readonly faults: Fault[] = [];
  private readonly globs = new Map<string, CompiledGlob>();
  private serial = 0;
  /** The PRNG's whole state (mulberry32): rates stay deterministic across a snapshot. */
  private rng: number;

  constructor(private readonly seed = 1) {
    this.rng = seed >>> 0;
  }

  private random(): number {
    const [next, value] = mulberry32(this.rng);
    this.rng = next;
    return value;
  }

  /** Faults and the generator's state for a state snapshot (CONTRACT §13). */
  exportState(): FaultsState {
    return { faults: structuredClone(this.faults), serial: this.serial, rng_state: this.rng };
  }

  /** Replaces every fault with a validated snapshot's. */
  restore(state: FaultsState): void {
    this.faults.length = 0;
    this.globs.clear();
    for (const fault of structuredClone(state.faults)) {
      this.faults.push(fault);
      if (fault.path) this.globs.set(fault.id, compileGlob(fault.path));
    }
    // Never behind a restored id (the schema refuses such a document; this keeps ids unique anyway).
    this.serial = state.faults.reduce((max, f) => Math.max(max, faultIdNumber(f.id)), state.serial);
    this.rng = state.rng_state >>> 0;
  }

  add(input: FaultInput): Fault {
    const fault: Fault = {
      id: `flt_${++this.serial}`,
      ...input,
      phase: input.phase ?? 'before',
      remaining: input.times ?? null,
      applied: 0,
    };
    this.faults.push(fault);
    if (fault.path) this.globs.set(fault.id, compileGlob(fault.path));
    return fault;
  }

  list(): Fault[] {
    return [...this.faults];
  }

  get(id: string): Fault | undefined {
    return this.faults.find((f) => f.id === id);
  }

  remove(id: string): boolean {
    const i = this.faults.findIndex((f) => f.id === id);
    if (i < 0) return false;
    this.faults.splice(i, 1);
    this.globs.delete(id);
    return true;
  }

  /** Removes every fault; the generator restarts from the seed (as after start). */
  clear(): void {
    this.faults.length = 0;
    this.globs.clear();
    this.rng = this.seed >>> 0;
  }

  get size(): number {
    return this.faults.length;
  }

  /** The effect on this request of the first matching fault that takes effect, if any. */
  match(req: FaultRequest): FaultEffect | undefined {
    if (this.faults.length === 0) return undefined;
    for (const fault of this.faults) {
      if (fault.client_id !== undefined && fault.client_id !== req.clientId) continue;
      if (fault.environment !== undefined && fault.environment !== req.env) continue;
      if (fault.method !== undefined && fault.method !== req.method) continue;
      if (fault.path !== undefined && !this.globs.get(fault.id)!.matches(pathOnly(req.path))) continue;
      const drop = fault.drop !== undefined && this.random() < fault.drop;
      const error = !drop && fault.error !== undefined && this.random() < (fault.error.rate ?? 1);
      const latencyMs = fault.latency_ms === undefined ? 0 : typeof fault.latency_ms === 'number' ? fault.latency_ms : Math.round(fault.latency_ms.min + this.random() * (fault.latency_ms.max - fault.latency_ms.min));
      if (!drop && !error && latencyMs === 0) continue; // matched, but a rate said no this time
      fault.applied++;
      if (fault.remaining !== null && --fault.remaining <= 0) this.remove(fault.id);
      return { fault, phase: fault.phase, latencyMs, drop, ...(error ? { errorStatus: fault.error!.status } : {}) };
    }
    return undefined;
  }
}

/** The path without its query: globs ignore it. */
function pathOnly(path: string): string {
  const q = path.indexOf('?');
  return q < 0 ? path : path.slice(0, q);
}

/** One step of mulberry32, a small seeded PRNG: the next state and a number in [0, 1). */
function mulberry32(state: number): [number, number] {
  const a = (state + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [a, ((t ^ (t >>> 14)) >>> 0) / 4294967296];
}
