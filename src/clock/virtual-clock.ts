// Over 300 lines on purpose: the virtual clock (modes, advance, waiting for work in flight, reset, snapshot) is one
// state machine over one timer queue; its invariants are easier to keep in one place.
// Its modes and state schema are clock.schemas.ts; the host timers it uses, clock.host.ts.
import { systemWallClock, type Scheduler, type WallClock } from './clock';
import { MAX_HOST_DELAY, nodeSlicing, nodeTimers, type HostTimers, type WorkSlicing } from './clock.host';
import type { ClockMode, ClockState } from './clock.schemas';
import { ISO } from './iso';
import { TimerQueue, type TimerFire, type TimerLabel, type TimerTag } from './timer-queue';
import { MAX_INSTANT, MAX_SPEED } from '../shared/schemas';

export interface FiredTimer {
  at: number;
  label: string;
}

export interface VirtualClockOptions {
  /** Virtual start, Unix ms (default: the wall clock at creation). */
  start?: number;
  mode?: ClockMode;
  /** Virtual seconds per wall second in realtime mode (default 1). */
  speed?: number;
  wall?: WallClock;
  host?: HostTimers;
  /** Called when a timer callback throws; the queue keeps going. */
  onError?: (error: unknown, label: string) => void;
  /** How an advance or a realtime tick shares the event loop (tests inject a counted one). */
  slicing?: Partial<WorkSlicing>;
}

/** Another advance is under way: the clock moves for one caller at a time. */
export class ClockBusyError extends Error {
  constructor() {
    super('the clock is already advancing');
    this.name = 'ClockBusyError';
  }
}

/** What stopped an advance under way: `POST /sandbox/reset`, or `PUT /sandbox/state`. */
export type AdvanceStopReason = 'reset' | 'restore';

/** A reset or a state restore replaced the clock while this advance was waiting (CONTRACT §9). */
export class AdvanceInterruptedError extends Error {
  readonly reason: AdvanceStopReason;
  constructor(reason: AdvanceStopReason) {
    super(`the advance was stopped by ${reason === 'reset' ? 'a reset' : 'a state restore'}`);
    this.name = 'AdvanceInterruptedError';
    this.reason = reason;
  }
}

/** One `advanceToAsync` under way; a reset or restore marks it stopped and lets it go. */
interface AdvanceRun {
  stoppedBy: AdvanceStopReason | undefined;
}

/**
 * The virtual clock of CONTRACT §2. `manual` moves only on `advance`/`advanceTo`;
 * `realtime` follows the wall clock × speed and fires due timers on its own.
 * Advancing fires every due timer in time order, each seeing `now()` equal to its own due time,
 * including timers that firing timers schedule inside the advanced span. It never goes back.
 */
export class VirtualClock implements Scheduler {
  private readonly queue = new TimerQueue();
  private readonly wall: WallClock;
  private readonly host: HostTimers;
  private readonly onError: (error: unknown, label: string) => void;
  private readonly slicing: WorkSlicing;
  private startMs: number;
  private modeValue: ClockMode;
  private speedValue: number;
  /** Virtual time at the anchor, and the wall time of the anchor (realtime mode). */
  private anchorVirtual: number;
  private anchorWall: number;
  /** While firing, now() is pinned to the firing timer's due time. */
  private pinned: number | null = null;
  private lastNow: number;
  private hostHandle: unknown = null;
  private firing = false;
  /** The advance under way, if any: `reset`/`restore` mark it stopped, so when it wakes it stops. */
  private run: AdvanceRun | null = null;
  /** Holds on firing (`hold`), and the advances waiting for the last to end. */
  private holds = 0;
  private held: Array<() => void> = [];

  constructor(options: VirtualClockOptions = {}) {
    this.wall = options.wall ?? systemWallClock;
    this.host = options.host ?? nodeTimers;
    this.onError = options.onError ?? (() => {});
    this.slicing = { ...nodeSlicing, ...options.slicing };
    this.startMs = options.start ?? this.wall.now();
    this.checkInstant(this.startMs); // the clock's range (MAX_INSTANT), whoever built it
    this.modeValue = options.mode ?? 'manual';
    this.speedValue = checkSpeed(options.speed ?? 1);
    this.anchorVirtual = this.startMs;
    this.anchorWall = this.wall.now();
    this.lastNow = this.startMs;
  }

  get mode(): ClockMode {
    return this.modeValue;
  }

  get speed(): number {
    return this.speedValue;
  }

  get start(): number {
    return this.startMs;
  }

  /** Number of timers not yet fired or cancelled. */
  get pending(): number {
    return this.queue.size;
  }

  /** Due time of the next timer, if any. */
  get nextDue(): number | undefined {
    return this.queue.peek()?.due;
  }

  now(): number {
    if (this.pinned !== null) return this.pinned;
    if (this.modeValue === 'manual') return this.lastNow;
    const computed = this.anchorVirtual + (this.wall.now() - this.anchorWall) * this.speedValue;
    // Monotonic even if the wall clock steps back; it stops at the ceiling a Date can render.
    if (computed > this.lastNow) this.lastNow = Math.min(Math.floor(computed), MAX_INSTANT);
    return this.lastNow;
  }

  /**
   * A timer at `at`; `fire` is called with the timer's tag and id (a function shared by many
   * timers finds what to do from them), `label` is its line in a list (or a function of its tag).
   */
  setTimer(at: number, fire: TimerFire, label: TimerLabel = 'timer', tag?: TimerTag): number {
    const id = this.queue.push(at, fire, label, tag);
    if (!this.firing) this.arm();
    return id;
  }

  clearTimer(id: number): void {
    if (this.queue.cancel(id) && !this.firing) this.arm();
  }

  /** A pending timer's due time, label and tag; undefined once it fired or was cleared. */
  timer(id: number): { due: number; label: string; tag: TimerTag | undefined } | undefined {
    const entry = this.queue.get(id);
    return entry && { due: entry.due, label: entry.label, tag: entry.tag };
  }

  /**
   * Fires one pending timer now, ahead of its due time, without moving virtual time (CONTRACT
   * §16: an order's own delayed steps happen now); false when it already fired or was cleared.
   */
  fireNow(id: number): boolean {
    const entry = this.queue.get(id);
    if (!entry || this.firing) return false;
    this.queue.cancel(id);
    entry.at = this.now();
    this.firing = true;
    try {
      entry.fire(entry.tag, entry.id);
    } catch (error) {
      this.onError(error, entry.label);
    } finally {
      this.firing = false;
    }
    this.arm();
    return true;
  }

  /** Switches mode and/or speed; virtual time is continuous across the switch. */
  configure(options: { mode?: ClockMode; speed?: number }): void {
    const now = this.now();
    if (options.speed !== undefined) this.speedValue = checkSpeed(options.speed);
    if (options.mode !== undefined) this.modeValue = options.mode;
    this.reanchor(now);
    this.arm();
  }

  /** Moves virtual time forward by `ms`, firing due timers. */
  advance(ms: number): FiredTimer[] {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance needs a finite, non-negative number of ms');
    return this.advanceTo(this.now() + ms);
  }

  /** Moves virtual time forward to `target` (Unix ms), firing due timers. Never goes back. */
  advanceTo(target: number): FiredTimer[] {
    if (this.firing) throw new Error('the clock cannot be advanced from inside a timer');
    target = this.checkTarget(target);
    const fired = this.fireUntil(target);
    this.reanchor(target);
    this.arm();
    return fired;
  }

  /**
   * Like `advanceTo`, but after each fired timer waits for `idle()` when it returns a promise:
   * work a timer starts outside the clock (a webhook attempt over real HTTP) finishes at that
   * timer's virtual time, so what it schedules next (a retry) lands inside the same advance.
   *
   * After every `sliceMs` of work it yields to the event loop (CONTRACT §9), so other requests
   * are answered mid-advance: they see `now()` pinned at the instant being fired, another
   * advance gets `ClockBusyError`, and a reset or restore stops this one. Timers they set that
   * fall due by `target` fire in this advance, in time order.
   */
  async advanceToAsync(target: number, idle: () => Promise<void> | undefined): Promise<FiredTimer[]> {
    if (this.firing) throw new ClockBusyError();
    target = this.checkTarget(target);
    const fired: FiredTimer[] = [];
    const run: AdvanceRun = { stoppedBy: undefined };
    this.run = run;
    this.firing = true;
    // A reset or restore while we waited: nothing from before it survives, this advance included.
    const stillOurs = () => {
      if (run.stoppedBy) throw new AdvanceInterruptedError(run.stoppedBy);
    };
    const { slicing } = this;
    let sliceStart = slicing.now();
    // While a state document is taken, no timer fires (`hold`): the advance waits, then goes on.
    const unheld = async () => {
      if (this.holds === 0) return;
      await new Promise<void>((resume) => this.held.push(resume));
      sliceStart = slicing.now();
      stillOurs();
    };
    const waitIdle = async () => {
      const pending = idle();
      if (pending) {
        await pending;
        sliceStart = slicing.now(); // waiting let the event loop run: a new slice starts
      }
      stillOurs();
      await unheld();
    };
    try {
      await unheld();
      // Work already under way finishes first, at the time it started.
      await waitIdle();
      while (this.fireNext(target, fired)) {
        // Every timer due at this same instant fires before we wait, so their work (webhook
        // attempts) runs concurrently: one hanging receiver costs one timeout per instant.
        // Yielding between them starts no wait: attempts keep running while requests are served.
        const instant = this.pinned ?? this.lastNow;
        do {
          if (slicing.now() - sliceStart >= slicing.sliceMs) {
            await slicing.yield();
            stillOurs();
            sliceStart = slicing.now();
            await unheld();
          }
        } while (this.fireNext(instant, fired));
        await waitIdle();
      }
    } finally {
      // After a reset or restore the clock is no longer ours: a new advance may already be running.
      if (this.run === run) {
        this.run = null;
        this.pinned = null;
        this.firing = false;
      }
    }
    this.reanchor(target);
    this.arm();
    return fired;
  }

  /**
   * Fires the timers due by the current virtual time (realtime ticks use this), for at most
   * `sliceMs` of work: what is still due then fires on the next host tick, armed with no delay,
   * so a fast realtime clock never blocks the event loop for long either (CONTRACT §9).
   */
  tick(): FiredTimer[] {
    if (this.firing || this.holds > 0) return [];
    const fired = this.fireUntil(this.now(), this.slicing.now() + this.slicing.sliceMs);
    this.arm();
    return fired;
  }

  /**
   * Holds every timer while a state document is taken (CONTRACT §13): a realtime tick fires none
   * and an advance under way waits at its next step; virtual time itself goes on. The function
   * returned lets go (once); the last hold let go fires what fell due meanwhile.
   */
  hold(): () => void {
    this.holds++;
    this.stop();
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      if (--this.holds > 0) return;
      this.arm();
      for (const resume of this.held.splice(0)) resume();
    };
  }

  /** Drops every timer and puts the clock back at its start, stopping an advance under way. */
  reset(): void {
    this.stopRun('reset');
    this.queue.clear();
    this.lastNow = this.startMs;
    this.reanchor(this.startMs);
    this.arm();
  }

  /** Pending timers in firing order, with the tags that say what they are for (CONTRACT §13). */
  pendingTimers(): Array<{ due: number; label: string; tag: TimerTag | undefined }> {
    return this.queue.entries().map((e) => ({ due: e.due, label: e.label, tag: e.tag }));
  }

  /**
   * The pending timers in no order, taken now (a state save orders them in slices with
   * `inFiringOrder`: a sort of 200,000 in one go would block the event loop, CONTRACT §9).
   */
  pendingTimersUnordered(): Array<{
    readonly due: number;
    readonly seq: number;
    readonly label: string;
    readonly tag: TimerTag | undefined;
  }> {
    return this.queue.unordered();
  }

  /** The clock's own state for a snapshot (its timers belong to the modules that set them). */
  exportState(): ClockState {
    return { now_ms: this.now(), start_ms: this.startMs, mode: this.modeValue, speed: this.speedValue };
  }

  /**
   * Puts the clock at a snapshot's instant with no timers (the modules re-create theirs),
   * stopping any advance under way as a reset does.
   */
  restore(state: ClockState): void {
    this.checkInstant(state.now_ms);
    this.checkInstant(state.start_ms);
    this.stopRun('restore');
    this.queue.clear();
    this.startMs = state.start_ms;
    this.modeValue = state.mode;
    this.speedValue = checkSpeed(state.speed);
    this.lastNow = state.now_ms;
    this.anchorVirtual = state.now_ms;
    this.anchorWall = this.wall.now();
    this.arm();
  }

  /** Stops the host timer (the process may exit); timers stay queued. */
  stop(): void {
    if (this.hostHandle !== null) this.host.clear(this.hostHandle);
    this.hostHandle = null;
  }

  /** Marks the advance under way (if any) stopped by `reason` and frees the clock at once. */
  private stopRun(reason: AdvanceStopReason): void {
    if (this.run) this.run.stoppedBy = reason;
    this.run = null;
    this.pinned = null;
    this.firing = false;
  }

  /** Fires the timers due by `target`, stopping early once the work clock passes `deadline`. */
  private fireUntil(target: number, deadline = Number.POSITIVE_INFINITY): FiredTimer[] {
    const fired: FiredTimer[] = [];
    this.firing = true;
    try {
      while (this.fireNext(target, fired) && (deadline === Number.POSITIVE_INFINITY || this.slicing.now() < deadline));
    } finally {
      this.pinned = null;
      this.firing = false;
    }
    return fired;
  }

  /** Fires the earliest timer due by `target` with now() pinned to its time; false if none. */
  private fireNext(target: number, fired: FiredTimer[]): boolean {
    const entry = this.queue.popDue(target);
    if (!entry) return false;
    const at = Math.max(entry.due, this.pinned ?? this.lastNow);
    this.pinned = at;
    this.lastNow = at;
    entry.at = at;
    fired.push(entry);
    try {
      entry.fire(entry.tag, entry.id);
    } catch (error) {
      this.onError(error, entry.label);
    }
    return true;
  }

  private checkInstant(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0 || ms > MAX_INSTANT) throw new RangeError(`not an instant the clock can hold: ${ms}`);
  }

  /**
   * The instant an advance to `target` goes to. In realtime the clock moves between the caller's
   * reading of `now()` and this one (`advance(0)` read it a millisecond ago: at speed 1,000,000,
   * a thousand virtual seconds ago), so a target it has just passed is where it is now; the
   * control route refuses a `to` already past before it gets here. In manual mode it never moves
   * by itself, and a target behind it is a caller's error.
   */
  private checkTarget(target: number): number {
    const now = this.now();
    if (!Number.isFinite(target)) throw new RangeError(`not an instant the clock can hold: ${target}`);
    if (target < now) {
      if (this.modeValue !== 'realtime' || this.pinned !== null)
        throw new RangeError(`the virtual clock never goes back (now ${ISO(now)})`);
      target = now;
    }
    // Past this a Date is invalid and every rendered instant would throw (the hardening issue).
    if (target > MAX_INSTANT) throw new RangeError(`the virtual clock cannot go past ${ISO(MAX_INSTANT)}`);
    return target;
  }

  private reanchor(virtual: number): void {
    this.lastNow = Math.max(this.lastNow, virtual);
    this.anchorVirtual = this.lastNow;
    this.anchorWall = this.wall.now();
  }

  private arm(): void {
    this.stop();
    if (this.modeValue !== 'realtime' || this.holds > 0) return;
    const next = this.queue.peek();
    if (!next) return;
    const wait = Math.max(0, (next.due - this.now()) / this.speedValue);
    this.hostHandle = this.host.set(
      () => {
        this.hostHandle = null;
        this.tick();
      },
      Math.min(Math.ceil(wait), MAX_HOST_DELAY),
    );
  }
}

function checkSpeed(speed: number): number {
  if (!Number.isFinite(speed) || speed <= 0 || speed > MAX_SPEED)
    throw new RangeError(`speed must be a positive number up to ${MAX_SPEED}`);
  return speed;
}
