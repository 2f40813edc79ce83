import { ISO, parseDuration } from '../../clock';
import type { Environment } from '../../reference';
import { validationError } from '../../shared/errors';
import { MAX_INSTANT } from '../../shared/schemas';
import { compileGlob, type CompiledGlob } from './glob';
import { faultIdNumber, type Fault, type FaultInput, type FaultsState } from './fault.schemas';

/** What a fault does to one request, decided when it matches. */
export interface FaultEffect {
  fault: Fault;
  phase: 'before' | 'after';
  latencyMs: number;
  /** The injected answer's status, or undefined for latency only. */
  errorStatus?: number;
  drop: boolean;
  /** CONTRACT §22: the connection is reset (RST) instead of answered. */
  reset: boolean;
  /** CONTRACT §22: the answer is a 200 whose body is not JSON. */
  malformed: boolean;
  /** CONTRACT §22: the answer is cut after this many body bytes. */
  truncate?: number;
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

  /**
   * @param seed the run's seed: rates draw from it (CONTRACT §22: the same seed and traffic, the same faults)
   * @param now the virtual now (CONTRACT §2): windows are virtual time
   */
  constructor(
    private readonly seed = 1,
    private readonly now: () => number = () => 0,
  ) {
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

  /**
   * Adds a fault; a window's durations are read from the virtual now (CONTRACT §22) and kept as
   * instants. Throws a 422 for a window that is empty or already over (it would never apply).
   */
  add(input: FaultInput): Fault {
    const { window, ...rest } = input;
    const resolved = window && this.resolveWindow(window);
    const fault: Fault = {
      id: `flt_${++this.serial}`,
      ...rest,
      ...(resolved ? { window: resolved } : {}),
      phase: input.phase ?? 'before',
      remaining: input.times ?? null,
      applied: 0,
      skipped: 0,
    };
    this.faults.push(fault);
    if (fault.path) this.globs.set(fault.id, compileGlob(fault.path));
    return fault;
  }

  private resolveWindow(window: NonNullable<FaultInput['window']>): NonNullable<Fault['window']> {
    const now = this.now();
    const at = (bound: string, field: string) => {
      const ms = parseDuration(bound);
      const instant = ms === undefined ? Date.parse(bound) : now + ms;
      if (instant > MAX_INSTANT)
        throw validationError(`window.${field}`, `must be at most ${ISO(MAX_INSTANT)}, the latest instant the clock holds`);
      // Before 1970 is simply in the past, as a rate script's point is: kept as 1970, the
      // earliest instant the clock and a state document hold (year 0000 at +01:00 was stored as
      // year -1, and the state saved with it did not load).
      return Math.max(0, instant);
    };
    const from = window.from === undefined ? undefined : at(window.from, 'from');
    const to = window.to === undefined ? undefined : at(window.to, 'to');
    if (from !== undefined && to !== undefined && to <= from)
      throw validationError('window.to', `must be after from (${ISO(to)} is not after ${ISO(from)}: the window would be empty)`);
    if (to !== undefined && to <= now)
      throw validationError('window.to', `is already past (${ISO(to)}; the virtual now is ${ISO(now)}): the fault would never apply`);
    return { ...(from !== undefined ? { from: ISO(from) } : {}), ...(to !== undefined ? { to: ISO(to) } : {}) };
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
  /**
   * The effect on this request of the first matching fault that takes effect, if any. A fault
   * outside its window (virtual time, CONTRACT §22) does not match; one still skipping lets the
   * request go on (to later faults) and counts it. Rates are drawn in a fixed order (drop, reset,
   * error, malformed, latency), each only when the ones before it did not take effect, so the
   * same seed and the same requests draw the same numbers.
   */
  match(req: FaultRequest): FaultEffect | undefined {
    if (this.faults.length === 0) return undefined;
    for (const fault of this.faults) {
      if (fault.client_id !== undefined && fault.client_id !== req.clientId) continue;
      if (fault.environment !== undefined && fault.environment !== req.env) continue;
      if (fault.method !== undefined && fault.method !== req.method) continue;
      if (fault.path !== undefined && !this.globs.get(fault.id)!.matches(pathOnly(req.path))) continue;
      if (fault.window && !inWindow(fault.window, this.now())) continue;
      if (fault.skip !== undefined && fault.skipped < fault.skip) {
        fault.skipped++;
        continue;
      }
      const drop = fault.drop !== undefined && this.random() < fault.drop;
      const reset = !drop && fault.reset !== undefined && this.random() < fault.reset;
      const error = !drop && !reset && fault.error !== undefined && this.random() < (fault.error.rate ?? 1);
      const malformed = !drop && !reset && !error && fault.malformed !== undefined && this.random() < fault.malformed;
      const latencyMs =
        fault.latency_ms === undefined
          ? 0
          : typeof fault.latency_ms === 'number'
            ? fault.latency_ms
            : Math.round(fault.latency_ms.min + this.random() * (fault.latency_ms.max - fault.latency_ms.min));
      // A cut needs an answer: none when the connection is dropped or reset.
      const truncate = drop || reset ? undefined : fault.truncate;
      if (!drop && !reset && !error && !malformed && truncate === undefined && latencyMs === 0) continue; // matched, but a rate said no this time
      fault.applied++;
      if (fault.remaining !== null && --fault.remaining <= 0) this.remove(fault.id);
      return {
        fault,
        phase: fault.phase,
        latencyMs,
        drop,
        reset,
        malformed,
        ...(error ? { errorStatus: fault.error!.status } : {}),
        ...(truncate !== undefined ? { truncate } : {}),
      };
    }
    return undefined;
  }
}

/** Whether the virtual instant `now` is inside a fault's window: from inclusive, to exclusive. */
function inWindow(window: NonNullable<Fault['window']>, now: number): boolean {
  return (window.from === undefined || now >= Date.parse(window.from)) && (window.to === undefined || now < Date.parse(window.to));
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
