/**
 * The driver: one realistic session of the integration against a sandbox, inside a readiness
 * run (CONTRACT §21). It provisions a partner whose webhooks go to the receiver, opens the run,
 * then does what a partner's backend and its customers do: reads reference data, places an
 * onramp, an offramp and a swap, has each paid (the sandbox's control API plays the customer),
 * lets time pass on the virtual clock and follows each order to `completed`; then finishes the
 * run and returns its report.
 */
import { PartnerClient, type Order, type OrderIntent } from './partner-client';
import { mistakesOf, VARIANTS, type Variant } from './mistakes';
import { startReceiver, type Receiver } from './webhook-receiver';
import { SandboxControl, type PartnerData, type ReadinessReport } from './sandbox-control';

export interface SessionOptions {
  /** The sandbox's base URL (no trailing slash). */
  sandboxUrl: string;
  adminToken?: string;
  /** A variant (or its id) from ./mistakes; the reference when left out. */
  variant?: Variant | string;
  /** Probes on (default true: CONTRACT §21). */
  probes?: boolean;
  /**
   * Wall ms the slow variant's work takes per event (default 5 500: past the 5 s of
   * spec §6.5 rule 1, as the `ack_fast` check measures it).
   */
  slowWorkMs?: number;
  /**
   * Deliveries the receiver answers 503 at start (default 1): a staged outage, so the run sees
   * the receiver acknowledge the retry of a delivery that failed (`recovers`, spec §6.5 rule 2).
   */
  outage?: number;
  log?: (line: string) => void;
}

export interface SessionResult {
  partner: PartnerData;
  /** The readiness run's final report. */
  report: ReadinessReport;
  /** The orders as last read (onramp, offramp, swap). */
  orders: Order[];
  /** Each order's status as the receiver's webhooks say. */
  received: Map<string, string>;
  /**
   * What the integration could not do, one line each (a variant's mistake may stop an order
   * short: the run is finished all the same, and its report says why).
   */
  errors: string[];
}

/** A wallet of the customer's (EVM: the driver picks an EVM network). */
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const ACCOUNT_NUMBER = '0123456789';
const FINAL = new Set(['completed', 'partially_completed', 'cancelled', 'expired', 'refunded', 'reverted']);

/** Runs one session of the reference (or a variant) and returns the run's final report. */
export async function runSession(options: SessionOptions): Promise<SessionResult> {
  const variant = typeof options.variant === 'string' ? findVariant(options.variant) : options.variant;
  const mistakes = mistakesOf(variant);
  const log = options.log ?? (() => {});
  const label = variant?.id ?? 'reference';
  const control = new SandboxControl(options.sandboxUrl, options.adminToken);

  let partner: PartnerData | undefined;
  const receiver: Receiver = await startReceiver({
    credentials: () => ({ clientId: partner?.client_id ?? '', encryptionKey: partner?.keys.test.encryption_key ?? '' }),
    mistakes,
    workMs: mistakes.slowAcknowledgement ? (options.slowWorkMs ?? 5_500) : 0,
    unavailableFor: options.outage ?? 1,
  });
  try {
    partner = await control.createPartner({ name: `integration ${label}`, webhook_url: receiver.url });
    const run = await control.openReadiness({ client_id: partner.client_id, environment: 'test', probes: options.probes ?? true });
    log(`${label}: partner ${partner.client_id}, readiness run ${run.id}`);
    const keys = partner.keys.test;
    const client = new PartnerClient({
      baseUrl: options.sandboxUrl,
      credentials: {
        clientId: partner.client_id,
        publicKey: keys.public_key,
        secretKey: keys.secret_key,
        encryptionKey: keys.encryption_key,
      },
      mistakes,
      log: (line) => log(`${label}: ${line}`),
    });

    // Reference data first, at run time (spec §4.2 rule 3).
    const data = await client.referenceData();
    const fiat = data.fiat.find((f) => f.code === 'NGN');
    if (!fiat || !data.crypto.some((c) => c.symbol === 'USDT')) throw new Error('NGN or USDT is not offered');
    const network = await client.networkFor(['USDT', 'USDC'], data);
    const bank = (await client.institutions(fiat.code)).find((i) => i.type === 'bank');
    if (!bank) throw new Error(`no bank for ${fiat.code}`);
    const customer = { reference: `cus-${label}`, name: 'Ada Obi', email: 'ada@example.com' };

    const errors: string[] = [];
    const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await fn();
      } catch (error) {
        errors.push(`${what}: ${(error as Error).message}`);
        log(`${label}: ${what} failed: ${(error as Error).message}`);
        return undefined;
      }
    };
    // The offramp customer types the account holder's name as the bank has it. The swap
    // customer's profile keeps the birth date as ISO: the API's 422 names it and the client fixes
    // it (spec §7).
    const intents: Array<[string, () => Promise<OrderIntent>]> = [
      [
        'onramp',
        async () => ({
          merchantReference: `${label}-onramp-1`,
          from: { currency: fiat.code, amount: 50_000 },
          to: { currency: 'USDT', network },
          customer,
          address: WALLET,
        }),
      ],
      [
        'offramp',
        async () => ({
          merchantReference: `${label}-offramp-1`,
          from: { currency: 'USDT', network, amount: 100 },
          to: { currency: fiat.code },
          customer,
          bankAccount: { institutionCode: bank.code, accountNumber: ACCOUNT_NUMBER, typedName: await nameOnAccount(control, bank.code) },
        }),
      ],
      [
        'swap',
        async () => ({
          merchantReference: `${label}-swap-1`,
          from: { currency: 'USDT', network, amount: 50 },
          to: { currency: 'USDC', network },
          customer: { ...customer, dob: '1990-02-14' },
          address: WALLET,
        }),
      ],
    ];
    const placed: Array<Order | undefined> = [];
    for (const [type, intent] of intents) placed.push(await attempt(type, async () => client.placeOrder(await intent())));
    const orders = placed.filter((o): o is Order => o !== undefined);
    log(`${label}: placed ${orders.map((o) => `${o.type} ${o.reference}`).join(', ')}`);

    // The partner reads each order (its page shows "awaiting payment"), the customers pay a
    // couple of minutes later, the partner reads each again, then the lifecycle runs on the
    // virtual clock (CONTRACT §8: at most 1 h) and the partner reads each until it is final.
    // Reads of one order are at least a second apart (spec §8): the client waits out the rest of
    // the second when needed.
    const read = (o: Order) => attempt(`read ${o.type}`, () => client.getOrder(o.reference));
    for (const o of orders) await read(o);
    await control.advance('2m');
    for (const o of orders) await control.payin(o.reference);
    for (const o of orders) await read(o);
    await control.advance('1h');
    const later = async () => {
      await control.advance('10m');
    };
    const final: Order[] = [];
    for (const o of orders)
      final.push((await attempt(`poll ${o.type}`, () => client.pollOrder(o.reference, (x) => FINAL.has(x.status), later))) ?? o);
    // The next day: every delivery's retries have run their course (CONTRACT §5: about 27.5 h),
    // so a delivery the receiver keeps failing ends `failed` inside the run.
    await control.advance('28h');
    await control.quiet(partner.client_id);
    await receiver.idle();

    const report = await control.finishReadiness(run.id);
    log(`${label}: verdict ${report.verdict}`);
    return { partner, report, orders: final, received: new Map([...receiver.orders].map(([k, v]) => [k, v.status])), errors };
  } finally {
    await receiver.close();
  }
}

/** The variant of this id (throws, listing them, when there is none). */
function findVariant(id: string): Variant {
  const found = VARIANTS.find((v) => v.id === id);
  if (!found) throw new Error(`unknown variant ${id}; one of: ${VARIANTS.map((v) => v.id).join(', ')}`);
  return found;
}

/**
 * What the customer types as the account holder's name: their name as their bank has it. The
 * sandbox makes names up per account (CONTRACT §8), so the driver asks it once through a
 * partner of its own, whose traffic no readiness run of the integration's partner counts.
 */
async function nameOnAccount(control: SandboxControl, bankCode: string): Promise<string> {
  const teller = await control.createPartner({ name: 'bank teller (driver)' });
  const res = await fetch(
    `${control.baseUrl}/v1/account-lookup?account_number=${ACCOUNT_NUMBER}&bank_code=${encodeURIComponent(bankCode)}`,
    {
      headers: { 'svc-client-id': teller.client_id, authorization: `Bearer ${teller.keys.test.public_key}` },
    },
  );
  const json = (await res.json()) as { data?: { account_name?: string } };
  if (!res.ok || !json.data?.account_name) throw new Error(`account lookup for the driver: ${res.status}`);
  return json.data.account_name;
}
