import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rejection, runYaml } from '../support/scenarios';
import { runAll, STEP_KINDS } from '../../src/scenario-runner';
import { startScenarioSandbox } from '../../src/cli/scenario-sandbox';

const head = 'name: t\nsteps:\n';
const order = `  - order:
      from: { currency: NGN, amount: 50000 }
      to: { currency: USDT, network: base-sepolia }
      recipient: { address: "\${fake.address(base-sepolia)}" }
      customer: { reference: c, name: "\${fake.name}", email: "\${fake.email}" }
    as: o
`;

describe('scenario files are checked before anything runs', () => {
  it('names the file, step number and field path', () => {
    const e = rejection(`${head}${order}  - payin: { order: o, amount: lots }\n`);
    expect(e.file).toBe('bad.yaml');
    expect(e.step).toBe(2);
    expect(e.field).toBe('steps.1.payin.amount');
    expect(e.message).toMatch(/^bad\.yaml: step 2: steps\.1\.payin\.amount: /);
  });

  it('rejects bad YAML, a missing name, no steps, and an unknown step kind', () => {
    expect(rejection('name: [unclosed\n').message).toMatch(/YAML/);
    expect(rejection('steps:\n  - expire: { order: o }\n').field).toBe('name');
    expect(rejection('name: t\nsteps: []\n').field).toBe('steps');
    const unknown = rejection(`${head}  - teleport: { order: o }\n`);
    expect(unknown).toMatchObject({ step: 1, field: 'steps.0' });
    expect(unknown.reason).toMatch(/exactly one step kind/);
    expect(rejection(`${head}  - payin: { order: o }\n    expire: { order: o }\n`).reason).toMatch(/found payin, expire/);
  });

  // One bad argument per step kind, each with the field it names.
  const cases: Record<(typeof STEP_KINDS)[number], [string, string]> = {
    quote: ['  - quote: { from: NGN, to: {} }\n', 'steps.1.quote.from'],
    order: ['  - order: nope\n', 'steps.1.order'],
    expect: ['  - expect: { order: o, status: done }\n', 'steps.1.expect.status'],
    payin: ['  - payin: { order: o, confirmed: maybe }\n', 'steps.1.payin.confirmed'],
    fulfil: ['  - fulfil: { tx_hash: "0x1" }\n', 'steps.1.fulfil.order'],
    payout: ['  - payout: { order: o, outcome: sometimes }\n', 'steps.1.payout.outcome'],
    cancel: ['  - cancel: { order: o, reason: 5 }\n', 'steps.1.cancel.reason'],
    advance: ['  - advance: { duration: soon }\n', 'steps.1.advance.duration'],
    expire: ['  - expire: {}\n', 'steps.1.expire.order'],
    simulate: ['  - simulate: { order: o, status: done }\n', 'steps.1.simulate.status'],
    deliver: ['  - deliver: { order: o, kind: sneaky }\n', 'steps.1.deliver.kind'],
    partner: ['  - partner: { webhook_url: somewhere }\n', 'steps.1.partner.webhook_url'],
    fault: ['  - fault: { error: { status: 418 } }\n', 'steps.1.fault.error.status'],
    find: ['  - find: { merchant_reference: 5 }\n', 'steps.1.find.merchant_reference'],
    rates: ['  - rates: { pair: NGN_USDT, path: [{ at: 5m, rate: high }] }\n', 'steps.1.rates.path.0.rate'],
    webhook_chaos: ['  - webhook_chaos: { duplicate_rate: often }\n', 'steps.1.webhook_chaos.duplicate_rate'],
  };
  for (const kind of STEP_KINDS) {
    it(`rejects a bad ${kind} step, naming ${cases[kind][1]}`, () => {
      const e = rejection(`${head}${order}${cases[kind][0]}`);
      expect(e.step).toBe(2);
      expect(e.field).toBe(cases[kind][1]);
    });
  }

  // A misspelled field was dropped: its check silently passed (`feilds` on expect checked nothing).
  const typos: Array<[string, string]> = [
    ['  - expect: { order: o, feilds: { from.amount: 1 } }\n', 'steps.1.expect'],
    ['  - expect: { order: o, delivery: { event: order.created, min_attempt: 2 } }\n', 'steps.1.expect.delivery'],
    ['  - expect: { order: o, webhooks: { events: [order.created], inorder: true } }\n', 'steps.1.expect.webhooks'],
    ['  - payin: { order: o, amout: "10%" }\n', 'steps.1.payin'],
    ['  - deliver: { order: o, kind: duplicate, expect_stats: 500 }\n', 'steps.1.deliver'],
    ['  - quote: { from: { currency: NGN, amount: 5 }, to: { currency: USDT, network: base-sepolia }, partnerfee: 1 }\n', 'steps.1.quote'],
    ['  - fulfil: { order: o, txhash: "0x1" }\n', 'steps.1.fulfil'],
    ['  - payout: { order: o, outcome: fail, percent: 5 }\n', 'steps.1.payout'],
    ['  - cancel: { order: o, reasons: x }\n', 'steps.1.cancel'],
    ['  - expire: { order: o, now: true }\n', 'steps.1.expire'],
    ['  - simulate: { order: o, status: completed, reson: x }\n', 'steps.1.simulate'],
    ['  - partner: { events: [order.created], kyb: approved }\n', 'steps.1.partner'],
  ];
  it.each(typos)('rejects a misspelled field: %s', (step, field) => {
    const e = rejection(`${head}${order}${step}`);
    expect(e.field).toBe(field);
    expect(e.reason).toMatch(/^Unrecognized key/);
  });

  it("rejects a misspelled field of the scenario's partner block and head", () => {
    expect(rejection(`name: t\npartner: { evnts: [order.created] }\nsteps:\n${order}`)).toMatchObject({ field: 'partner' });
    expect(rejection(`name: t\ndescripton: x\nsteps:\n${order}`).reason).toMatch(/^Unrecognized key: "descripton"/);
  });

  it('rejects a reference to a name no earlier step defined', () => {
    const e = rejection(`${head}  - payin: { order: o }\n${order}`);
    expect(e).toMatchObject({ step: 1, field: 'steps.0.payin.order' });
    expect(e.reason).toMatch(/missing reference o/);
    const inText = rejection(`${head}${order}  - expect: { fields: { x: "\${q.quote_id}" } }\n`);
    expect(inText.reason).toMatch(/missing reference q/);
  });

  it('rejects as: on a step that gives no result, and expect_error on one that judges what it reads', () => {
    expect(rejection(`${head}${order}  - expire: { order: o }\n    as: e\n`).field).toBe('steps.1.as');
    expect(rejection(`${head}${order}  - expect: { order: o, status: expired }\n    expect_error: { status: 400 }\n`).field).toBe(
      'steps.1.expect_error',
    );
  });

  it('rejects a whole run when one file is bad, before running the good ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scn-'));
    writeFileSync(join(dir, 'good.yaml'), `${head}${order}`);
    writeFileSync(join(dir, 'bad.yaml'), `${head}  - expire: {}\n`);
    let out = '';
    const run = await runAll({
      startSandbox: startScenarioSandbox,
      files: [join(dir, 'good.yaml'), join(dir, 'bad.yaml')],
      write: (t) => (out += t),
    });
    expect(run.results).toHaveLength(0);
    expect(out).toMatch(/bad\.yaml: step 1: steps\.0\.expire\.order/);
    expect(out).toMatch(/nothing was run/);
  });
});

describe('step failures at run time', () => {
  it('fails advance until a status when the bound is exceeded', async () => {
    const { result, out } = await runYaml(
      `${head}${order}  - payin: { order: o }\n  - advance: { until: { order: o, status: completed }, within: 5m }\n`,
    );
    expect(result!.ok).toBe(false);
    expect(result!.failure).toMatchObject({ index: 3, kind: 'advance' });
    expect(result!.failure!.error).toMatch(/bound exceeded: order ORD\w+ did not reach completed within 5m/);
    expect(out).toMatch(/expected: "completed"/);
    expect(out).toMatch(/seen: {5}"awaiting_lp_payment"/);
    expect(out).toMatch(/timeline:/);
  });

  it('prints what was expected, what was seen, the timeline and the deliveries so far', async () => {
    const { result, out } = await runYaml(`${head}${order}  - expect: { order: o, status: completed }\n`);
    expect(result!.failure).toMatchObject({ index: 2, kind: 'expect', expected: 'completed', seen: 'awaiting_user_payment' });
    expect(out).toMatch(/status +awaiting_user_payment/);
    expect(out).toMatch(/deliveries of ORD\w+:\n {4}order\.created +succeeded/);
  });

  it('fails an API step that answers an error, and one whose expected error does not come', async () => {
    const failing = await runYaml(`${head}${order}  - fulfil: { order: o }\n`);
    expect(failing.result!.failure).toMatchObject({ index: 2, kind: 'fulfil' });
    expect(failing.result!.failure!.error).toMatch(/request failed with 400/);
    const noError = await runYaml(`${head}${order}  - expire: { order: o }\n    expect_error: { status: 400 }\n`);
    expect(noError.result!.failure!.error).toMatch(/expected an error/);
    const otherError = await runYaml(
      `${head}${order}  - cancel: { order: o }\n  - cancel: { order: o }\n    expect_error: { code: E_CONFLICT }\n`,
    );
    expect(otherError.result!.failure!.error).toMatch(/not the expected one/);
  });

  it('fails a reference that resolves to nothing at run time', async () => {
    const { result } = await runYaml(`${head}${order}  - expect: { fields: { amount_paid: "\${o.nothing.here}" }, order: o }\n`);
    expect(result!.failure!.error).toMatch(/missing reference \$\{o\.nothing\.here\}/);
  });

  it('fails a deliver step with nothing delivered to base it on', async () => {
    const { result } = await runYaml(`name: t\npartner: { webhook: false }\nsteps:\n${order}  - deliver: { order: o, kind: duplicate }\n`);
    expect(result!.failure!.error).toMatch(/no delivered webhook/);
  });
});
