// The client checks of CONTRACT §21: what a partner's API client does, read from its /v1
// requests. Each passes only on evidence of the right behaviour (never by default), but
// `raw_body`, `validation_retry` and `polling`, which pass when the traffic they watch was seen
// without the mistake.
import { fail, is2xx, notExercised, pass, type CheckDef, type Evidence } from './check';
import type { RequestFact, RunFacts } from './facts';

const ev = (r: RequestFact, note: string): Evidence => ({ request_id: r.id, ...(r.reference ? { order: r.reference } : {}), note });

/** The run's requests in its environment (a key of the other one is key_environment's business). */
const inRun = (f: RunFacts): RequestFact[] => f.requests.filter((r) => r.env === undefined || r.env === f.environment);
/** Past authentication: the request reached its route (or a fault that stands for it). */
const authed = (r: RequestFact): boolean => r.auth === 'public' || r.auth === 'secret';
const secretOf = (f: RunFacts): RequestFact[] => inRun(f).filter((r) => r.keyKind === 'sk');

/** Spec §8: "at most once a second"; the partner's clock and ours jitter, so 100 ms of slack. */
const POLL_INTERVAL_MS = 1000;
const POLL_SLACK_MS = 100;
/** A request measured as having come this early before Retry-After ended is still on time (rounding, clocks). */
const RETRY_SLACK_MS = 50;

export const signing: CheckDef = {
  id: 'signing',
  side: 'client',
  clause: 'spec §5.2',
  title: 'Secret-key requests are signed so they verify, and keep verifying',
  fix: 'HMAC-SHA256 the canonical string clientId|timestamp|METHOD|path?query|rawBody with the enc_* key (not sk_*); compare with the svc-sandbox-hint of a refused request',
  run(f) {
    const secret = secretOf(f);
    const first = secret.findIndex((r) => r.auth === 'secret');
    const failures = secret.filter((r) => r.failure === 'signature');
    if (first < 0) {
      return failures.length > 0
        ? fail(failures.map((r) => ev(r, 'signature refused, and no secret-key request has verified')))
        : notExercised(secret.length > 0);
    }
    const after = secret.slice(first + 1).filter((r) => r.failure === 'signature');
    if (after.length > 0) return fail(after.map((r) => ev(r, 'signature refused after signing had worked')));
    return pass([
      ev(secret[first]!, 'first secret-key request that verified'),
      { note: `${secret.filter((r) => r.auth === 'secret').length} secret-key requests verified` },
    ]);
  },
};

export const timestampMs: CheckDef = {
  id: 'timestamp_ms',
  side: 'client',
  clause: 'spec §5.2',
  title: 'svc-timestamp is Unix time in milliseconds, and the same value is signed',
  fix: 'send and sign Unix time in milliseconds (13 digits), not seconds',
  run(f) {
    const secret = secretOf(f);
    const seconds = secret.filter((r) => r.failure === 'seconds');
    if (seconds.length > 0) return fail(seconds.map((r) => ev(r, 'timestamp in seconds (sent or signed)')));
    const ok = secret.find((r) => r.auth === 'secret');
    return ok ? pass([ev(ok, 'a millisecond timestamp, signed and accepted')]) : notExercised(secret.length > 0);
  },
};

export const rawBody: CheckDef = {
  id: 'raw_body',
  side: 'client',
  clause: 'spec §5.2',
  title: 'The body signed is the exact body sent (not re-serialised)',
  fix: 'serialise the body once, sign that string and send that same string',
  run(f) {
    const watched = secretOf(f).filter((r) => r.hasBody);
    const bad = watched.filter((r) => r.failure === 'raw_body');
    if (bad.length > 0) return fail(bad.map((r) => ev(r, 'the signature matches a re-serialised body, not the bytes sent')));
    const good = watched.filter((r) => r.auth === 'secret');
    return good.length > 0
      ? pass([ev(good[0]!, `${good.length} signed requests with a body verified over the bytes sent`)])
      : notExercised(watched.length > 0);
  },
};

export const keyEnvironment: CheckDef = {
  id: 'key_environment',
  side: 'client',
  clause: 'spec §5',
  title: "Keys of the run's environment only; the public key only on reads",
  fix: 'use the *_test_* keys against the test environment, send sk_* (never pk_* or enc_*) on writes',
  run(f) {
    const bad: Evidence[] = [];
    for (const r of f.requests) {
      if (r.keyKind && r.env && r.env !== f.environment) bad.push(ev(r, `a ${r.env} key in a ${f.environment} run`));
      else if (r.failure === 'public_on_secret') bad.push(ev(r, 'the public key on a route that needs the secret key'));
      else if (r.keyKind === 'enc') bad.push(ev(r, 'the enc_* key sent as the Bearer token'));
    }
    if (bad.length > 0) return fail(bad);
    const good = f.requests.filter((r) => authed(r) && r.env === f.environment);
    const pk = good.find((r) => r.keyKind === 'pk');
    const sk = good.find((r) => r.keyKind === 'sk');
    if (!pk && !sk) return notExercised(f.requests.length > 0);
    return pass([...(pk ? [ev(pk, 'public key on a read')] : []), ...(sk ? [ev(sk, `secret ${f.environment} key`)] : [])]);
  },
};

export const referenceData: CheckDef = {
  id: 'reference_data',
  side: 'client',
  clause: 'spec §4.2 rule 3, §9',
  title: 'Networks and currencies are read at run time before they are used',
  fix: 'GET /v1/networks and /v1/crypto-currencies (or /v1/fiat-currencies) at start-up and validate against them; never ship a fixed list',
  run(f) {
    const reqs = inRun(f);
    const first = reqs.findIndex((r) => (r.kind === 'quote' || r.kind === 'create') && authed(r));
    if (first < 0) return notExercised(false);
    const before = reqs.slice(0, first).filter((r) => is2xx(r.status));
    const networks = before.find((r) => r.kind === 'networks');
    const currencies = before.find((r) => r.kind === 'currencies');
    const use = reqs[first]!;
    if (networks && currencies) return pass([ev(networks, 'networks read'), ev(currencies, 'currencies read'), ev(use, 'then first used')]);
    const missing = [networks ? '' : 'networks', currencies ? '' : 'currencies'].filter(Boolean).join(' and ');
    return fail([ev(use, `first quote or order made before the ${missing} were read`)]);
  },
};

export const accountLookup: CheckDef = {
  id: 'account_lookup',
  side: 'client',
  clause: 'spec §4.2 rule 1',
  title: 'An offramp create follows an account lookup and uses its account_name',
  fix: 'call GET /v1/account-lookup?account_number=…&bank_code=… before each offramp create and send the account_name it returns',
  run(f) {
    const reqs = inRun(f);
    const bad: Evidence[] = [];
    const good: Evidence[] = [];
    // The latest successful lookup of each account so far: one pass, whatever the traffic.
    const lookups = new Map<string, RequestFact>();
    for (const c of reqs) {
      if (c.kind === 'lookup' && is2xx(c.status) && c.accountNumber !== undefined) lookups.set(c.accountNumber, c);
      if (c.kind !== 'create' || c.orderType !== 'offramp' || !authed(c) || c.accountNumber === undefined) continue;
      const lookup = lookups.get(c.accountNumber);
      if (!lookup) bad.push(ev(c, `offramp create for account ${c.accountNumber} with no account lookup before it`));
      else if (lookup.accountName !== c.accountName)
        bad.push(ev(c, `recipient.account_name "${c.accountName ?? ''}" is not the lookup's "${lookup.accountName ?? ''}" (${lookup.id})`));
      else good.push(ev(c, `account_name from lookup ${lookup.id}`));
    }
    if (bad.length > 0) return fail(bad);
    return good.length > 0 ? pass(good) : notExercised(reqs.some((r) => r.orderType === 'offramp' && r.kind === 'create'));
  },
};

export const quoteTtl: CheckDef = {
  id: 'quote_ttl',
  side: 'client',
  clause: 'spec §2.5, §8',
  title: 'After a create is refused for an expired quote, no create from an expired quote again',
  fix: 'on "quote expired" (400), make a new quote and create from it; create before ttl_in_seconds elapses',
  run(f, ctx) {
    const reqs = inRun(f);
    const quoted = reqs.some((r) => r.kind === 'quote' && is2xx(r.status));
    const first = reqs.findIndex((r) => r.expiredQuote);
    if (first < 0)
      return notExercised(
        quoted,
        quoted ? `no create was refused for an expired quote yet${ctx.probes ? ' (the probe ends one quote early)' : ''}` : undefined,
      );
    const refused = reqs[first]!;
    const later = reqs.slice(first + 1);
    const again = later.filter((r) => r.expiredQuote);
    if (again.length > 0)
      return fail([
        ev(refused, 'refused: quote expired'),
        ...again.map((r) => ev(r, `created from an expired quote again (${r.quoteId ?? 'no quote_id'})`)),
      ]);
    const next = later.find((r) => (r.kind === 'quote' || r.kind === 'create') && is2xx(r.status));
    return next
      ? pass([
          ev(refused, 'refused: quote expired'),
          ev(next, next.kind === 'quote' ? 'then quoted again' : 'then created from a live quote'),
        ])
      : notExercised(true, `${refused.id} was refused for an expired quote; nothing was quoted or created after it yet`);
  },
};

export const validationRetry: CheckDef = {
  id: 'validation_retry',
  side: 'client',
  clause: 'spec §7',
  title: 'A 422 is not sent again unchanged',
  fix: 'treat 422 E_VALIDATION_ERROR as final: fix the field its message names (`<field>: <reason>`) before sending again',
  run(f) {
    const reqs = inRun(f);
    const writes = reqs.filter((r) => r.method !== 'GET' && r.hasBody && authed(r));
    const bad: Evidence[] = [];
    let refused = 0;
    reqs.forEach((r, i) => {
      if (r.status !== 422) return;
      refused++;
      const again = reqs.find((n, j) => j > i && n.fingerprint === r.fingerprint);
      if (again) bad.push(ev(again, `the request refused with 422 (${r.id}) sent again unchanged`));
    });
    if (bad.length > 0) return fail(bad);
    return writes.length > 0
      ? pass([{ note: `${writes.length} writes, ${refused} refused with 422, none sent again unchanged` }])
      : notExercised(false);
  },
};

export const rateLimit: CheckDef = {
  id: 'rate_limit',
  side: 'client',
  clause: 'spec §8, CONTRACT §3',
  title: 'After a 429, nothing is sent on that key before Retry-After',
  fix: 'on 429 wait the Retry-After seconds (per key) before the next request; do not retry at once',
  run(f) {
    const reqs = f.requests;
    const bad: Evidence[] = [];
    const good: Evidence[] = [];
    reqs.forEach((r, i) => {
      if (r.status !== 429 || r.retryAfterMs === undefined || r.key === undefined) return;
      const next = reqs.find((n, j) => j > i && n.key === r.key);
      if (!next) return;
      const waited = Math.round(next.start - r.end);
      if (waited + RETRY_SLACK_MS < r.retryAfterMs)
        bad.push(ev(next, `sent ${waited} ms after a 429 (${r.id}) that said Retry-After ${r.retryAfterMs / 1000} s`));
      else good.push(ev(next, `waited ${waited} ms after the 429 (${r.id}, Retry-After ${r.retryAfterMs / 1000} s)`));
    });
    if (bad.length > 0) return fail(bad);
    return good.length > 0
      ? pass(good)
      : notExercised(
          reqs.some(authed),
          reqs.some((r) => r.status === 429) ? 'a 429 was answered; nothing was sent on that key after it yet' : undefined,
        );
  },
};

export const idempotentCreate: CheckDef = {
  id: 'idempotent_create',
  side: 'client',
  clause: 'CONTRACT §12',
  title: 'A create retried after a 5xx or lost answer carries the same merchant_reference; a 409 leads to reading the order',
  fix: 'give every create a merchant_reference, resend the same one after a 5xx or timeout, and on 409 read the existing order (GET /v1/orders/{reference}, or find it by its merchant_reference in GET /v1/orders)',
  run(f, ctx) {
    const reqs = inRun(f);
    const bad: Evidence[] = [];
    const good: Evidence[] = [];
    const waiting: Evidence[] = [];
    reqs.forEach((c, i) => {
      if (c.kind !== 'create' || !authed(c)) return;
      const later = (find: (r: RequestFact) => boolean) => reqs.find((r, j) => j > i && find(r));
      if (c.status === 0 || c.status >= 500) {
        const answered = c.status || 'nothing';
        if (!c.merchantReference) {
          // Without one, a retry cannot be told from another order's create (nor can the sandbox).
          if (later((r) => r.kind === 'create'))
            bad.push(ev(c, `create answered ${answered} without a merchant_reference: a retry of it cannot be told from a new order`));
          else waiting.push(ev(c, `create answered ${answered}; not retried yet`));
          return;
        }
        // The retry is the later create of the same merchant_reference, or of the same order asked
        // for under another one (its body but the merchant_reference): the creates between are other
        // orders (a client creating several at once), not this one's retry.
        const retry = later(
          (r) => r.kind === 'create' && (r.merchantReference === c.merchantReference || (c.intent !== undefined && r.intent === c.intent)),
        );
        const read = later(
          (r) => r.kind === 'list_orders' || (r.kind === 'get_order' && c.reference !== undefined && r.reference === c.reference),
        );
        if (retry && retry.merchantReference !== c.merchantReference)
          bad.push(
            ev(retry, `retry of ${c.id} carries merchant_reference ${retry.merchantReference ?? '(none)'}, not ${c.merchantReference}`),
          );
        else if (retry) good.push(ev(retry, `retry of ${c.id} (answered ${answered}) with the same merchant_reference`));
        else if (read) good.push(ev(read, `looked the order up after ${c.id} was answered ${answered}, instead of creating it again`));
        else
          (ctx.final ? bad : waiting).push(
            ev(c, `create answered ${answered}: neither resent with merchant_reference ${c.merchantReference} nor looked up`),
          );
      } else if (c.status === 409 && c.reference) {
        const read = later((r) => (r.kind === 'get_order' && r.reference === c.reference) || r.kind === 'list_orders');
        if (read) good.push(ev(read, `read the existing order after the 409 (${c.id})`));
        else
          (ctx.final ? bad : waiting).push(
            ev(c, `409 for merchant_reference ${c.merchantReference ?? ''}: the existing order ${c.reference} was not read`),
          );
      }
    });
    if (bad.length > 0) return fail(bad);
    if (waiting.length > 0) return { status: 'not_exercised', applies: true, evidence: waiting };
    return good.length > 0
      ? pass(good)
      : notExercised(
          reqs.some((r) => r.kind === 'create' && authed(r)),
          `no create was answered 5xx or lost yet${ctx.probes ? " (the probe loses one create's answer)" : ''}`,
        );
  },
};

export const polling: CheckDef = {
  id: 'polling',
  side: 'client',
  clause: 'spec §8',
  title: 'GET order at most once a second per order',
  fix: 'poll an order at most once a second (better: rely on webhooks and read the order when one arrives)',
  run(f) {
    const gets = inRun(f).filter((r) => r.kind === 'get_order' && authed(r));
    const last = new Map<string, RequestFact>();
    const bad: Evidence[] = [];
    for (const r of gets) {
      const before = last.get(r.reference!);
      if (before && r.start - before.start < POLL_INTERVAL_MS - POLL_SLACK_MS)
        // Overlapping reads (sent before the previous one was answered) are 0 ms apart, not less.
        bad.push(ev(r, `read again ${Math.max(0, Math.round(r.start - before.start))} ms after ${before.id}`));
      last.set(r.reference!, r);
    }
    if (bad.length > 0) return fail(bad);
    return gets.length > 0
      ? pass([{ note: `${gets.length} reads of ${last.size} orders, none within a second of the last` }])
      : notExercised(false);
  },
};

export const CLIENT_CHECKS: readonly CheckDef[] = [
  signing,
  timestampMs,
  rawBody,
  keyEnvironment,
  referenceData,
  accountLookup,
  quoteTtl,
  validationRetry,
  rateLimit,
  idempotentCreate,
  polling,
];
