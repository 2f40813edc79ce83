/**
 * Holds the changes to a sandbox's state while its state document is taken in slices (CONTRACT
 * §13 "stream it", §9 "nothing blocks for long"): an export closes the gate once the changes under
 * way have ended, changes that come meanwhile wait until it opens again, and reads go on. So the
 * document is the state of one instant, though the event loop runs between its slices.
 *
 * A change is what a request that may change the state does (every route but GET, and but the
 * few that change nothing the document holds). One that answers at once cannot interleave with
 * an export: only one that returns a promise is counted as under way (`track`).
 */
export class ChangeGate {
  /** Exports that hold the gate or wait to (several share one closing). */
  private holds = 0;
  /** Changes under way (their promise not settled yet). */
  private changing = 0;
  private opened: { promise: Promise<void>; resolve: () => void } | undefined;
  private drained: Array<() => void> = [];
  private waitingCount = 0;

  /** Whether a change must wait: an export holds the gate, or waits for the changes under way. */
  get closed(): boolean {
    return this.holds > 0;
  }

  /** Changes waiting for the gate to open. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Resolves once no export holds the gate (a later export may close it again: check `closed`). */
  async whenOpen(): Promise<void> {
    this.waitingCount++;
    try {
      await this.opened?.promise;
    } finally {
      this.waitingCount--;
    }
  }

  /** Counts a change under way until `done` settles; an export waits for it first. */
  track<T>(done: Promise<T>): Promise<T> {
    this.changing++;
    const end = () => {
      if (--this.changing === 0) for (const resolve of this.drained.splice(0)) resolve();
    };
    done.then(end, end);
    return done;
  }

  /**
   * Closes the gate (changes that come from now on wait) and resolves once the changes under way
   * have ended, with the function that opens it again (once; later calls do nothing).
   */
  async close(): Promise<() => void> {
    if (this.holds++ === 0) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.opened = { promise, resolve };
    }
    if (this.changing > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      if (--this.holds === 0) {
        const opened = this.opened!;
        this.opened = undefined;
        opened.resolve();
      }
    };
  }
}
