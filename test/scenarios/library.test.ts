import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../../src/orders';
import { DEFAULT_CONFIG } from '../../src/sandbox/config';
import { runAll } from '../../src/scenario-runner';
import { WEBHOOK_EVENTS } from '../../src/shared/events';
import { startTestServer } from '../support/server';
import { isRunning, spawnTs } from '../support/spawn';

const quiet = () => {};

// The library in process, one sandbox per scenario, is `npm run scenarios` (run once by .ci/run);
// here it runs against a shared running sandbox (--sandbox) and against `npm start`.
describe('the scenario library', () => {
  let statuses = new Set<string>();
  let events = new Set<string>();

  it('passes against a separately started sandbox (--sandbox) with the default rate limit', async () => {
    // the limit `npm start` has, read from the config rather than copied (the test helper's is lifted)
    const server = await startTestServer({ rateLimit: DEFAULT_CONFIG.rateLimit });
    try {
      const run = await runAll({ sandboxUrl: server.url, write: quiet });
      expect(run.results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.failure?.error}`)).toEqual([]);
      expect(run.results.length).toBeGreaterThanOrEqual(15);
      statuses = new Set(run.results.flatMap((r) => r.statuses));
      events = new Set(run.results.flatMap((r) => r.events));
      // the scenarios shared one sandbox, each with its own partner
      const partners = new Set(
        run.results
          .map((r) => r.orders[0])
          .filter(Boolean)
          .map((ref) => server.sandbox.orders.find(ref!).clientId),
      );
      expect(partners.size).toBe(run.results.filter((r) => r.orders.length > 0).length);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('reaches all 15 statuses and emits all 10 events, read from the run', () => {
    // The counts the title names, so that a status or event dropped from the lists fails here too.
    expect(ORDER_STATUSES).toHaveLength(15);
    expect(WEBHOOK_EVENTS).toHaveLength(10);
    expect([...statuses].sort()).toEqual([...ORDER_STATUSES].sort());
    expect([...events].sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });
});

describe('against `npm start -- --clock manual`', () => {
  // The sandbox this block starts is gone when the block ends (a test stops every process it starts).
  let pid: number | undefined;
  afterAll(() => {
    expect(pid, 'the sandbox was started').toBeDefined();
    expect(isRunning(pid!), `the sandbox (pid ${pid}) is still running`).toBe(false);
  });

  it('passes the library with --sandbox pointing at a separately started sandbox', async () => {
    const root = new URL('../../', import.meta.url).pathname;
    const child = spawnTs(`${root}src/cli/serve.ts`, ['--clock', 'manual', '--port', '0', '--log-level', 'warn'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    pid = child.pid;
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (c) => {
          out += String(c);
          const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
      });
      const run = await runAll({ sandboxUrl: url, write: () => {} });
      expect(run.results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.failure?.error}`)).toEqual([]);
      expect(run.results.length).toBeGreaterThanOrEqual(15);
    } finally {
      const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
      child.kill();
      await exited;
    }
  }, 90_000);
});
