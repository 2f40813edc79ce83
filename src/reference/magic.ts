/**
 * Magic values (README "Magic values"): inputs that drive outcomes through /v1 alone,
 * the way test card numbers do elsewhere. One table, so docs and code cannot drift.
 */
export interface MagicAccount {
  account_number: string;
  /** Account lookup answers 404 for it. */
  notFound?: boolean;
  /** The payout of an offramp to this account ends this way. */
  payout?: 'fail' | 'revert';
  description: string;
}

export const MAGIC_ACCOUNTS: readonly MagicAccount[] = [
  { account_number: '0000000000', notFound: true, description: 'account lookup: not found (404)' },
  { account_number: '1111111111', payout: 'fail', description: 'offramp payout to it fails, the order is refunded' },
  { account_number: '2222222222', payout: 'revert', description: 'offramp payout to it is reverted after being sent, the order is refunded' },
];

/** The magic entry for an account number, if any. */
export function lookupMagicAccount(accountNumber: string): MagicAccount | undefined {
  return MAGIC_ACCOUNTS.find((m) => m.account_number === accountNumber);
}
