import { afterAll, describe, expect, it } from 'vitest';
import { advance, createOrder } from '../support/orders';
import { startReceiver, type Receiver } from '../support/receiver';
import { startTestServer, type Caller, type Reply, type TestServer } from '../support/server';

/**
 * Nothing belongs to the process that belongs to one sandbox (CONTRACT §14: `startSandbox()`
 * per test file gives several in one process). Two sandboxes of different seeds run the same
 * script interleaved, step by step; each must end as the same script run alone leaves a sandbox
 * of its seed: the same state document, the same webhook bodies, the same request ids.
 */
const SEEDS = [7, 8] as const;

interface Run {
  s: TestServer;
  receiver: Receiver;
  partner?: Caller;
  refs: string[];
  /** Every `x-request-id` the sandbox answered, in order. */
  requestIds: string[];
}

const started: Array<{ close(): Promise<void> | void }> = [];
afterAll(async () => {
  for (const thing of started.splice(0).reverse()) await thing.close();
});

async function open(seed: number): Promise<Run> {
  const receiver = await startReceiver();
  const s = await startTestServer({ seed });
  started.push(receiver, s);
  return { s, receiver, refs: [], requestIds: [] };
}

const seen = (run: Run, reply: Reply): Reply => {
  run.requestIds.push(reply.headers.get('x-request-id') ?? '');
  if (reply.status !== 200) throw new Error(`${reply.status} ${reply.text}`);
  return reply;
};

/** The script: creates, pay-ins, advances, a snapshot and its restore, in steps. */
const STEPS: Array<(run: Run) => Promise<void>> = [
  async (run) => {
    run.partner = await run.s.createPartner({ webhook_url: run.receiver.url });
  },
  async (run) => {
    run.refs.push((await createOrder(run.s, 'onramp', {}, { as: run.partner! })).reference);
  },
  async (run) => {
    run.refs.push((await createOrder(run.s, 'offramp', {}, { as: run.partner! })).reference);
  },
  async (run) => {
    seen(run, await run.s.control('POST', `/sandbox/orders/${run.refs[0]}/payin`, {}));
  },
  async (run) => {
    await advance(run.s, '5m');
  },
  async (run) => {
    const doc = seen(run, await run.s.control('GET', '/sandbox/state')).body.data;
    seen(run, await run.s.control('PUT', '/sandbox/state', doc));
  },
  async (run) => {
    seen(run, await run.s.control('POST', `/sandbox/orders/${run.refs[1]}/payin`, {}));
    run.refs.push((await createOrder(run.s, 'swap', {}, { as: run.partner! })).reference);
  },
  async (run) => {
    await advance(run.s, '1h');
    await run.s.sandbox.dispatcher.idle();
  },
];

/** What the run leaves: its state document (wall times and the receiver's port aside), the webhook bodies, the request ids. */
async function outcome(run: Run) {
  const doc = seen(run, await run.s.control('GET', '/sandbox/state'))
    .text.split(run.receiver.url)
    .join('<receiver>');
  return {
    state: JSON.parse(doc, (key, value) => (key === 'wall_at' || key === 'duration_ms' ? undefined : value)) as unknown,
    // Deliveries of one step may arrive in any order: compared as a set.
    webhooks: run.receiver.received.map((r) => r.rawBody).sort(),
    requestIds: run.requestIds,
  };
}

describe('two sandboxes in one process', () => {
  it('each ends as it would alone: the same state document, webhook bodies and request ids, interleaved with the other', async () => {
    const together = await Promise.all(SEEDS.map(open));
    for (const step of STEPS) for (const run of together) await step(run);
    const interleaved = await Promise.all(together.map(outcome));

    for (const [i, seed] of SEEDS.entries()) {
      const run = await open(seed);
      for (const step of STEPS) await step(run);
      const alone = await outcome(run);
      expect(alone.webhooks.length).toBeGreaterThan(5);
      expect(interleaved[i]!.state).toStrictEqual(alone.state);
      expect(interleaved[i]!.webhooks).toStrictEqual(alone.webhooks);
      expect(interleaved[i]!.requestIds).toStrictEqual(alone.requestIds);
    }
    // And the two seeds did make two different sandboxes.
    expect(interleaved[0]!.state).not.toStrictEqual(interleaved[1]!.state);
  });
});
