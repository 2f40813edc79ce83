import { afterAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES } from '../../src/orders';
import { runAll } from '../../src/scenario-runner';
import { WEBHOOK_EVENTS } from '../../src/shared/events';
import { startTestServer } from '../support/server';
import { spawnTs } from '../support/spawn';

const quiet = () => {};

// The library in process, one sandbox per scenario, is `npm run scenarios` (run once by .ci/run);
// here it runs against a shared running sandbox (--sandbox) and against `npm start`.
describe('the scenario library', () => {
  let statuses = new Set<string>();
  let events = new Set<string>();

  it('passes against a separately started sandbox (--sandbox) with the default rate limit', async () => {
    const server = await startTestServer({ rateLimit: { capacity: 60, refillPerSecond: 30 } });
    try {
      const run = await runAll({ sandboxUrl: server.url, write: quiet });
      expect(run.results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.failure?.error}`)).toEqual([]);
      expect(run.results.length).toBeGreaterThanOrEqual(15);
      statuses = new Set(run.results.flatMap((r) => r.statuses));
      events = new Set(run.results.flatMap((r) => r.events));
      // the scenarios shared one sandbox, each with its own partner
      const partners = new Set(run.results.map((r) => r.orders[0]).filter(Boolean).map((ref) => server.sandbox.orders.find(ref!).clientId));
      expect(partners.size).toBe(run.results.filter((r) => r.orders.length > 0).length);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('reaches all 15 statuses and emits all 10 events, read from the run', () => {
    expect([...statuses].sort()).toEqual([...ORDER_STATUSES].sort());
    expect([...events].sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });
});

afterAll(() => {});

describe('against `npm start -- --clock manual`', () => {
  it('passes the library with --sandbox pointing at a separately started sandbox', async () => {
    const root = new URL('../../', import.meta.url).pathname;
    const child = spawnTs(`${root}src/cli/serve.ts`, ['--clock', 'manual', '--port', '0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
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
      child.kill();
    }
  }, 90_000);
});
