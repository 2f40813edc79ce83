import { startServer } from '../sandbox/server';
import type { SandboxStarter } from '../scenario-runner';

/**
 * The in-process sandbox `npm run scenarios` gives each scenario worker: a manual clock, quiet
 * logs and no rate limit. Composition, like main.ts, so the scenario runner itself only ever
 * speaks HTTP to a sandbox it is handed.
 */
export const startScenarioSandbox: SandboxStarter = ({ seed }) =>
  startServer({
    port: 0,
    host: '127.0.0.1',
    clockMode: 'manual',
    logLevel: 'silent',
    seed,
    rateLimit: { capacity: 1e9, refillPerSecond: 1e9 },
  });
