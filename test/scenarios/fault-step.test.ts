import { describe, expect, it } from 'vitest';
import { rejection, runYaml } from '../support/scenarios';
import { BuiltInReceiver, parseScenario, runScenario, SandboxClient } from '../../src/scenario-runner';
import { startTestServer } from '../support/server';

const head = 'name: t\nsteps:\n';
const order = (extra = '') => `  - order:
      from: { currency: NGN, amount: 50000 }
      to: { currency: USDT, network: base-sepolia }
      recipient: { address: "\${fake.address(base-sepolia)}" }
      customer: { reference: c, name: "\${fake.name}", email: "\${fake.email}" }
${extra}`;

describe('the fault step is checked like the other steps (CONTRACT §12: the fields of POST /sandbox/faults)', () => {
  it('names the wrong field, an unknown one included', () => {
    expect(rejection(`${head}  - fault: { error: { status: 418 } }\n`).field).toBe('steps.0.fault.error.status');
    expect(rejection(`${head}  - fault: { path: /orders, drop: 1 }\n`)).toMatchObject({
      field: 'steps.0.fault.path',
      reason: expect.stringMatching(/\/v1 path glob/),
    });
    expect(rejection(`${head}  - fault: { method: POST }\n`)).toMatchObject({
      field: 'steps.0.fault.error',
      reason: 'give at least one of latency_ms, error, drop, reset, truncate or malformed',
    });
    expect(rejection(`${head}  - fault: { error: { status: 500 }, time: 1 }\n`)).toMatchObject({
      field: 'steps.0.fault.time',
      reason: expect.stringMatching(/^unknown field "time" \(a fault's kinds: .*; its other fields: .*times/),
    });
    expect(rejection(`${head}  - fault: { clear: maybe }\n`).field).toBe('steps.0.fault.clear');
    expect(rejection(`${head}  - fault: { clear: true, drop: 1 }\n`).field).toBe('steps.0.fault.drop');
  });

  it('rejects expect_error dropped with a status, and a reference to an unknown name in expect_error', () => {
    expect(rejection(`${head}${order('    expect_error: { dropped: true, status: 500 }\n')}`).field).toBe('steps.0.expect_error.dropped');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${f.id} is the scenario's reference syntax, resolved by the runner
    expect(rejection(`${head}${order('    expect_error: { message: "${f.id}" }\n')}`)).toMatchObject({
      field: 'steps.0.expect_error.message',
      reason: expect.stringMatching(/missing reference f/),
    });
  });
});

describe('the fault step at run time', () => {
  it('creates the fault through the control API, scoped to the scenario partner, and removes it when the scenario ends', async () => {
    const server = await startTestServer();
    const receiver = await new BuiltInReceiver().start();
    try {
      const scenario = parseScenario(
        `${head}  - fault: { method: POST, path: /v1/orders, error: { status: 503 } }\n    as: f\n  - expect: { fields: { f.error.status: 503 } }\n`,
        'x.yaml',
      );
      const seen: unknown[] = [];
      const result = await runScenario(scenario, {
        client: new SandboxClient(server.url),
        receiver,
        seed: 1,
        key: 'fault-visible',
        onStep: async (step) => {
          if (step.index === 2) seen.push(...(await server.control('GET', '/sandbox/faults')).body.data);
        },
      });
      expect(result.ok).toBe(true);
      expect(seen).toEqual([
        expect.objectContaining({
          id: 'flt_1',
          method: 'POST',
          path: '/v1/orders',
          error: { status: 503 },
          phase: 'before',
          client_id: expect.stringMatching(/\w/),
        }),
      ]);
      const listed = await server.control('GET', '/sandbox/faults');
      expect(listed.body.data).toEqual([]);
    } finally {
      await receiver.close();
      await server.close();
    }
  });

  it('passes API steps that expect the injected error, the drop and the 429, and clears faults', async () => {
    // biome-ignore-start lint/suspicious/noTemplateCurlyInString: ${f.id} is the scenario's reference syntax, resolved by the runner
    const { result, out } = await runYaml(`${head}  - fault: { method: POST, path: /v1/orders, error: { status: 500 }, times: 1 }
    as: f
${order('    expect_error: { status: 500, code: E_SANDBOX_FAULT, message: "injected fault ${f.id}" }\n')}  - fault: { path: /v1/orders, drop: 1, times: 1 }
${order('    expect_error: { dropped: true }\n')}  - fault: { method: POST, path: /v1/orders, error: { status: 429 }, times: 1 }
${order('    expect_error: { status: 429, code: E_RATE_LIMITED }\n')}  - fault: { path: /v1/**, error: { status: 504 } }
  - fault: { clear: true }
${order('    as: o\n')}  - find: { merchant_reference: nothing-here, count: 0 }
  - find: { status: awaiting_user_payment, count: 1 }
  - expect: { order: o, status: awaiting_user_payment }
`);
    // biome-ignore-end lint/suspicious/noTemplateCurlyInString: as above
    expect(out).not.toMatch(/✗/);
    expect(result.ok).toBe(true);
    // phase before: the faulted creates were not carried out, so only the last one made an order
    expect(result.orders).toHaveLength(1);
  });

  it('fails a step that meets an injected error it did not expect, saying so', async () => {
    const { result } = await runYaml(`${head}  - fault: { method: POST, path: /v1/orders, error: { status: 503 } }\n${order()}`);
    expect(result.failure).toMatchObject({ index: 2, kind: 'order', seen: { status: 503, code: 'E_SANDBOX_FAULT' } });
    expect(result.failure!.error).toMatch(
      /^request failed with 503 \(injected fault flt_\d+; expect it with expect_error: \{status: 503, code: E_SANDBOX_FAULT\}\)$/,
    );
  });

  it('fails a step whose connection is dropped unexpectedly, and one that expected a drop but got an answer', async () => {
    const dropped = await runYaml(`${head}  - fault: { path: /v1/orders, drop: 1 }\n${order()}`);
    expect(dropped.result.failure!.error).toMatch(/connection was closed without an answer/);
    const answered = await runYaml(`${head}${order('    expect_error: { dropped: true }\n')}`);
    expect(answered.result.failure!.error).toMatch(/expected the connection to be closed without an answer/);
  });
});

describe('the fault step in virtual time, and the new kinds (CONTRACT §22)', () => {
  it('passes steps that expect a reset, a truncated answer and a malformed one; a window opens on an advance; skip lets the first through', async () => {
    const { result, out } = await runYaml(`${head}  - fault: { method: POST, path: /v1/orders, reset: 1, times: 1 }
${order('    expect_error: { dropped: true }\n')}  - fault: { method: POST, path: /v1/orders, truncate: 10, times: 1 }
${order('    expect_error: { dropped: true }\n')}  - fault: { method: POST, path: /v1/orders, malformed: 1, times: 1 }
${order('    expect_error: { malformed: true }\n')}  - fault: { method: POST, path: /v1/orders, error: { status: 503 }, window: { from: 5m, to: 10m }, skip: 1, times: 1 }
${order()}  - advance: { duration: 5m }
${order()}${order('    expect_error: { status: 503, code: E_SANDBOX_FAULT }\n')}${order()}`);
    expect(out).not.toMatch(/✗/);
    expect(result.ok).toBe(true);
    // the orders the runner saw made: before the window, the one skipped, the one after `times` ran out
    expect(result.orders).toHaveLength(3);
  });

  it('fails a step that meets a malformed answer it did not expect, saying so; and refuses malformed with a status', async () => {
    const { result } = await runYaml(`${head}  - fault: { method: POST, path: /v1/orders, malformed: 1 }\n${order()}`);
    expect(result.failure!.error).toMatch(
      /^the answer was not JSON \(an injected malformed\? expect it with expect_error: \{malformed: true\}\)$/,
    );
    expect(rejection(`${head}${order('    expect_error: { malformed: true, status: 500 }\n')}`).field).toBe(
      'steps.0.expect_error.malformed',
    );
    expect(rejection(`${head}  - fault: { drop: 1, window: { from: 10m, to: 5m } }\n`)).toMatchObject({
      field: 'steps.0.fault.window.to',
      reason: 'must be after from (the window would be empty)',
    });
    expect(rejection(`${head}  - fault: { drop: 1, skip: -1 }\n`).field).toBe('steps.0.fault.skip');
  });

  it('a find step takes expect_error: its read may be the one a fault cuts; expecting an error that does not come fails; expect and deliver still refuse it', async () => {
    const { result, out } =
      await runYaml(`${head}${order('    as: o\n')}  - fault: { method: GET, path: /v1/orders, truncate: 40, times: 1 }
  - find: { status: awaiting_user_payment }
    expect_error: { dropped: true }
  - find: { status: awaiting_user_payment, count: 1 }
`);
    expect(out).not.toMatch(/✗/);
    expect(result.ok).toBe(true);
    const answered = await runYaml(`${head}  - find: { status: completed, count: 0 }\n    expect_error: { status: 503 }\n`);
    expect(answered.result.failure).toMatchObject({ kind: 'find', error: 'expected an error' });
    expect(rejection(`${head}  - expect: { fields: { a: 1 } }\n    expect_error: { status: 503 }\n`).field).toBe('steps.0.expect_error');
  });
});
