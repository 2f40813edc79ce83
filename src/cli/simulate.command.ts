import { ORDER_STATUSES, type OrderStatus } from '../orders/model';
import { oneLine, onStdoutClosed, palette, useColour } from './output';
import { REMOTE_USAGE, runRemote, UsageError } from './remote';

const USAGE = `Usage: ramp-sandbox simulate REF STATUS [--reason TEXT] [options]

Takes order REF to STATUS in one call (POST /sandbox/orders/{reference}/simulate), along its
machine's shortest path: the pay-ins, confirmations and payout outcomes the path needs are
simulated, and every webhook on the way is sent in order. The virtual clock does not move.
Prints the statuses passed through. A status the order cannot reach is refused with the
reachable ones.

STATUS is one of: ${ORDER_STATUSES.join(', ')}

  --reason TEXT       recorded on the timeline entry of the failing step (at most 200 characters)
  --json              print the order detail and its path as JSON
${REMOTE_USAGE}

Example: ramp-sandbox simulate ORD1234 refunded --reason "bank rejected the account"
`;

const OPTIONS = {
  reason: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** `ramp-sandbox simulate` (CONTRACT §16, §17). */
export async function main(argv: string[]): Promise<void> {
  await runRemote(
    'simulate',
    USAGE,
    OPTIONS,
    async ({ values, positionals, control }) => {
      const [reference, status, ...extra] = positionals;
      if (reference === undefined || status === undefined) throw new UsageError('give the order REF and the STATUS to take it to');
      if (extra.length > 0) throw new UsageError(`one REF and one STATUS (also given: ${oneLine(extra.join(' '), 80)})`);
      if (!isStatus(status)) throw new UsageError(`unknown status '${oneLine(status, 80)}'`);
      const body = values.reason === undefined ? { status } : { status, reason: values.reason };
      const order = await control.simulateOrder({ params: { reference }, body });
      onStdoutClosed(() => process.exit(process.exitCode ?? 0));
      if (values.json) {
        process.stdout.write(`${JSON.stringify(order)}\n`);
        return;
      }
      const c = palette(useColour());
      const path = order.path.length > 1 ? order.path.join(' → ') : `already ${order.status}`;
      process.stdout.write(`${order.reference} ${c.bold(order.status)}: ${path}\n`);
    },
    argv,
  );
}

function isStatus(name: string): name is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(name);
}
