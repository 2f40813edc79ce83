/** Cost per fired timer of one VirtualClock.advance over N due timers. Prints one JSON line. */
import { VirtualClock } from '../src/clock';

function measure(n: number, rounds: number): number {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const clock = new VirtualClock({ start: 0, mode: 'manual' });
    let sink = 0;
    // Due times spread over an hour, inserted in random order, like orders created over time.
    for (let i = 0; i < n; i++) clock.setTimer(Math.floor(Math.random() * 3_600_000), () => void (sink += 1), 'bench');
    const t0 = process.hrtime.bigint();
    clock.advance(3_600_000);
    const ns = Number(process.hrtime.bigint() - t0);
    if (sink !== n) throw new Error('not every timer fired');
    best = Math.min(best, ns / n);
  }
  return best;
}

measure(10_000, 2); // warm up the JIT
const result: Record<string, number> = {};
for (const n of [1_000, 10_000, 100_000]) result[n] = Math.round(measure(n, n === 100_000 ? 5 : 20));
process.stdout.write(`${JSON.stringify({ nsPerTimer: result, ratio100kTo1k: Number((result[100_000]! / result[1_000]!).toFixed(2)) })}\n`);
