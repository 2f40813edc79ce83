import { describe, expect, it } from 'vitest';
import { rejection } from '../support/scenarios';
import { BuiltInReceiver, parseScenario, runScenario, SandboxClient } from '../../src/scenario-runner';
import { startTestServer } from '../support/server';

// CONTRACT §22: the rates and webhook_chaos steps; what a scenario sets is gone when it ends.
const head = 'name: t\nsteps:\n';

describe('the rates and webhook_chaos steps', () => {
  it('name the wrong field', () => {
    expect(rejection(`${head}  - rates: { pair: NGN_USDT }\n`).field).toBe('steps.0.rates.path');
    expect(rejection(`${head}  - rates: { remove: NGN_USDT, pair: NGN_USDT }\n`).field).toBe('steps.0.rates.pair');
    expect(rejection(`${head}  - webhook_chaos: { duplicates: 1 }\n`).field).toBe('steps.0.webhook_chaos.duplicates');
    expect(rejection(`${head}  - webhook_chaos: { remove: yes }\n`).field).toBe('steps.0.webhook_chaos.remove');
  });

  it("script the rate and set the partner's chaos through the control API, expect the route's errors, and leave nothing when the scenario ends", async () => {
    const server = await startTestServer();
    const receiver = await new BuiltInReceiver().start();
    try {
      const scenario = parseScenario(
        `${head}  - rates: { pair: NGN_USDT, path: [{ at: 0s, rate: 1600 }] }
  - rates: { pair: NGN_XYZ, path: [{ at: 0s, rate: 1 }] }
    expect_error: { status: 404, code: E_NOTFOUND }
  - webhook_chaos: { duplicate_rate: 1, delay: { min: 1s, max: 5s } }
  - webhook_chaos: { delay: { min: 5s, max: 1s } }
    expect_error: { status: 422, message: "delay.min: min must not exceed max" }
  - quote: { from: { currency: NGN, amount: 50000 }, to: { currency: USDT, network: base-sepolia } }
    as: q
  - expect: { fields: { q.pricing.exchange_rate: 1616 } }
`,
        'x.yaml',
      );
      const seen: unknown[] = [];
      const result = await runScenario(scenario, {
        client: new SandboxClient(server.url),
        receiver,
        seed: 1,
        key: 'chaos-steps',
        onStep: async (step) => {
          if (step.index === 6) {
            seen.push((await server.controlApi.listRates()).scripts.map((s) => s.pair));
            seen.push(server.sandbox.dispatcher.chaos.list());
          }
        },
      });
      expect(result.ok, JSON.stringify(result.steps.filter((s) => !s.ok))).toBe(true);
      expect(seen).toEqual([
        ['NGN_USDT'],
        [{ client_id: expect.stringMatching(/\w/), duplicate_rate: 1, delay: { min: '1s', max: '5s' } }],
      ]);
      expect((await server.controlApi.listRates()).scripts).toEqual([]);
      expect(server.sandbox.dispatcher.chaos.list()).toEqual([]);
    } finally {
      await receiver.close();
      await server.close();
    }
  });
});
