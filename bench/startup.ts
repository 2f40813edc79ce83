/**
 * In-process start and close (CONTRACT §14: under 50 ms, so every test file can have its own):
 * `startSandbox()` then `close()`, timed from a fresh process. Prints one JSON line.
 * Usage: node --import tsx bench/startup.ts [runs] [warmup]
 */
import { startSandbox } from '../src';

const RUNS = Number(process.argv[2] ?? 50);
const WARMUP = Number(process.argv[3] ?? 5);

async function once(): Promise<number> {
  const started = performance.now();
  const sandbox = await startSandbox();
  await sandbox.close();
  return performance.now() - started;
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const first = await once(); // the first in a process: what a test file that starts one pays
for (let i = 1; i < WARMUP; i++) await once();
const times: number[] = [];
for (let i = 0; i < RUNS; i++) times.push(await once());
times.sort((a, b) => a - b);
const at = (q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))]!);
process.stdout.write(
  `${JSON.stringify({ runs: RUNS, warmup: WARMUP, firstMs: round(first), medianMs: at(0.5), p90Ms: at(0.9), maxMs: round(times.at(-1)!) })}\n`,
);
