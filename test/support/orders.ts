import type { TestServer, Caller } from './server';

export const EVM_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
export const TRON_ADDRESS = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
export const SOLANA_ADDRESS = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';

export const customer = { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' };

export const legs = {
  onramp: { from: { currency: 'NGN', amount: 50_000 }, to: { currency: 'USDT', network: 'base-sepolia' } },
  offramp: { from: { currency: 'USDT', network: 'base-sepolia', amount: 100 }, to: { currency: 'NGN' } },
  swap: { from: { currency: 'USDC', network: 'base-sepolia', amount: 100 }, to: { currency: 'ETH', network: 'base-sepolia' } },
} as const;

export type OrderType = keyof typeof legs;

/** The bank's name for an account, through the public lookup (what a partner does). */
export async function accountName(s: TestServer, bankCode: string, accountNumber: string, as?: Caller): Promise<string> {
  const res = await s.pub('GET', `/v1/account-lookup?account_number=${accountNumber}&bank_code=${bankCode}`, { as });
  if (res.status !== 200) throw new Error(`lookup failed: ${res.text}`);
  return res.body.data.account_name;
}

/** A valid recipient for the type (offramp: a real lookup). */
export async function recipientFor(s: TestServer, type: OrderType, opts: { accountNumber?: string; address?: string } = {}) {
  if (type === 'offramp') {
    const account_number = opts.accountNumber ?? '0123456789';
    return { institution_code: '058', account_number, account_name: await accountName(s, '058', account_number) };
  }
  return { address: opts.address ?? EVM_ADDRESS };
}

/** Creates an order of `type` from legs; `over` replaces body fields. */
export async function createOrder(
  s: TestServer,
  type: OrderType,
  over: Record<string, unknown> = {},
  opts: { as?: Caller; env?: 'test' | 'live' } = {},
) {
  const body = { ...legs[type], recipient: await recipientFor(s, type), customer, ...over };
  const res = await s.signed('POST', '/v1/orders', body, opts);
  if (res.status !== 200) throw new Error(`create ${type}: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function getOrder(s: TestServer, reference: string, opts: { as?: Caller; env?: 'test' | 'live' } = {}) {
  const res = await s.signed('GET', `/v1/orders/${reference}?include=payout,timeline`, undefined, opts);
  if (res.status !== 200) throw new Error(`get: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function advance(s: TestServer, duration: string) {
  const res = await s.control('POST', '/sandbox/clock/advance', { duration });
  if (res.status !== 200) throw new Error(`advance: ${res.text}`);
  return res.body.data;
}

/** Statuses an order went through, from its timeline. */
export const statusesOf = (order: any): string[] => order.timeline.filter((t: any) => t.group === 'status').map((t: any) => t.event);

/** Webhook events an order emitted, from its timeline. */
export const eventsOf = (order: any): string[] => order.timeline.filter((t: any) => t.group === 'webhook').map((t: any) => t.event);
