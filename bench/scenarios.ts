/**
 * Scenario runner speed: the whole library in process, and 1,000 generated happy-path
 * scenarios (a third of each order type) run in parallel. Prints one JSON line.
 */
import { parseScenario, runAll } from '../src/scenario-runner';
import { startScenarioSandbox } from '../src/cli/scenario-sandbox';

const N = Number(process.argv[2] ?? 1000);
const CONCURRENCY = Number(process.argv[3] ?? 16);

const bodies = [
  `from: { currency: NGN, amount: 50000 }
      to: { currency: USDT, network: base-sepolia }
      recipient: { address: "\${fake.address(base-sepolia)}" }`,
  `from: { currency: USDT, network: base-sepolia, amount: 100 }
      to: { currency: NGN }
      recipient: "\${fake.account(058)}"`,
  `from: { currency: USDC, network: base-sepolia, amount: 100 }
      to: { currency: ETH, network: base-sepolia }
      recipient: { address: "\${fake.address(base-sepolia)}" }`,
];
const generated = Array.from({ length: N }, (_, i) =>
  parseScenario(
    `name: generated ${i}
steps:
  - order:
      ${bodies[i % 3]}
      customer: { reference: "c${i}", name: "\${fake.name}", email: "\${fake.email}" }
    as: o
  - payin: { order: o }
  - advance: { duration: 1h }
  - expect: { order: o, status: completed }
`,
    `generated-${i}.yaml`,
  ),
);

const quiet = () => {};
let t0 = performance.now();
const library = await runAll({ startSandbox: startScenarioSandbox, write: quiet });
const libraryMs = Math.round(performance.now() - t0);
t0 = performance.now();
const run = await runAll({ startSandbox: startScenarioSandbox, scenarios: generated, concurrency: CONCURRENCY, write: quiet });
const seconds = (performance.now() - t0) / 1000;
const orders = run.results.reduce((n, r) => n + r.orders.length, 0);
process.stdout.write(
  `${JSON.stringify({
    library: { scenarios: library.results.length, passed: library.results.filter((r) => r.ok).length, ms: libraryMs },
    generated: {
      scenarios: N,
      passed: run.results.filter((r) => r.ok).length,
      concurrency: CONCURRENCY,
      seconds: Number(seconds.toFixed(2)),
      ordersPerSecond: Math.round(orders / seconds),
    },
  })}\n`,
);
