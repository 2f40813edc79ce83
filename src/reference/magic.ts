/**
 * Magic values (docs/control-api.md, "Magic values"): inputs that drive outcomes through /v1 alone,
 * the way test card numbers do elsewhere. One table each, so docs and code cannot drift.
 */
export interface MagicAccount {
  account_number: string;
  /** Account lookup answers 404 for it. */
  notFound?: boolean;
  /** The payout of an offramp to this account ends this way. */
  payout?: { outcome: 'fail' | 'revert' | 'partial'; percentage?: number };
  description: string;
}

const MAGIC_ACCOUNTS: readonly MagicAccount[] = [
  { account_number: '0000000000', notFound: true, description: 'account lookup answers 404; an offramp to it is refused (422)' },
  { account_number: '1111111111', payout: { outcome: 'fail' }, description: 'offramp payout fails: failed, then refunded' },
  {
    account_number: '2222222222',
    payout: { outcome: 'revert' },
    description: 'offramp payout is sent, then reverted: reverted, then refunded',
  },
  {
    account_number: '3333333333',
    payout: { outcome: 'partial', percentage: 50 },
    description: 'offramp payout lands only 50%: the rest is refunded, ends partially_completed',
  },
];

/** Crypto recipient addresses (onramp, swap) whose last four characters pick the payout outcome. */
const MAGIC_ADDRESS_SUFFIXES: ReadonlyArray<{ suffix: string; outcome: 'fail' | 'revert'; description: string }> = [
  { suffix: 'dead', outcome: 'fail', description: 'crypto payout fails: failed, then refunded' },
  { suffix: 'beef', outcome: 'revert', description: 'crypto payout is sent, then reverted: reverted, then refunded' },
];

export type MagicAmountBehaviour = { kind: 'auto_payin'; fraction: number; confirmed: boolean } | { kind: 'hold_initiated' };

/** The leg amount of a quote or order request (whichever leg carries it) that triggers a behaviour. */
const MAGIC_AMOUNTS: ReadonlyArray<{ amount: number; behaviour: MagicAmountBehaviour; description: string }> = [
  {
    amount: 7777,
    behaviour: { kind: 'auto_payin', fraction: 1, confirmed: true },
    description: 'the exact pay-in arrives, confirmed, 1 min after creation',
  },
  {
    amount: 5555,
    behaviour: { kind: 'auto_payin', fraction: 0.5, confirmed: true },
    description: 'half the pay-in arrives 1 min after creation: underpaid, ends partially_completed',
  },
  {
    amount: 8888,
    behaviour: { kind: 'auto_payin', fraction: 1.1, confirmed: true },
    description: '110% of the pay-in arrives 1 min after creation: the excess is refunded',
  },
  {
    amount: 6666,
    behaviour: { kind: 'auto_payin', fraction: 1, confirmed: false },
    description: 'the exact pay-in is seen 1 min after creation but not confirmed: pending until fulfil',
  },
  {
    amount: 4444,
    behaviour: { kind: 'hold_initiated' },
    description: 'the order stays initiated for 2 min before its pay-in instructions are issued',
  },
];

/** The magic entry for an account number, if any. */
export function lookupMagicAccount(accountNumber: string): MagicAccount | undefined {
  return MAGIC_ACCOUNTS.find((m) => m.account_number === accountNumber);
}

/** The magic behaviour of a request amount, if any. */
export function lookupMagicAmount(amount: number | undefined): MagicAmountBehaviour | undefined {
  return MAGIC_AMOUNTS.find((m) => m.amount === amount)?.behaviour;
}

/** The payout outcome a crypto address asks for, if any. */
export function lookupMagicAddress(address: string): 'fail' | 'revert' | undefined {
  const tail = address.slice(-4).toLowerCase();
  return MAGIC_ADDRESS_SUFFIXES.find((m) => m.suffix === tail)?.outcome;
}
