// The receiver checks of CONTRACT §21: how a partner's webhook receiver answers, read from the
// delivery log. The probes (one adversarial delivery of each kind of CONTRACT §6) give the
// occasions; each check passes only on the receiver's answer to them, never by default.
import { fail, is2xx, notExercised, pass, type CheckDef, type Evidence } from './check';
import type { DeliveryFact, RunFacts } from './facts';
import type { ProbeKind } from '../webhooks';

/** Spec §6.5 rule 1 "quickly": a 2xx within this many wall ms. */
const ACK_WITHIN_MS = 5000;

const ev = (d: DeliveryFact, note: string): Evidence => ({ delivery_id: d.id, ...(d.order ? { order: d.order } : {}), note });
/** Deliveries of the lifecycle aimed at the receiver (probes aside). */
const ordinary = (f: RunFacts): DeliveryFact[] => f.deliveries.filter((d) => !d.probe && d.aimed);
/** Whether the receiver was sent anything to answer: the receiver checks apply. */
const receiving = (f: RunFacts): boolean => ordinary(f).some((d) => d.attempts.length > 0);

/** The probe of a kind and the receiver's HTTP answer to it, once it gave one. */
function probeAnswer(f: RunFacts, kind: ProbeKind): { d: DeliveryFact; status: number } | undefined {
  for (const d of f.deliveries) {
    const status = d.probe === kind ? d.attempts[0]?.status : undefined;
    if (status !== undefined && status !== null) return { d, status };
  }
  return undefined;
}

/** A check on probes the receiver must refuse (`refuse`) or acknowledge. */
function probeCheck(kinds: readonly ProbeKind[], refuse: boolean): CheckDef['run'] {
  return (f) => {
    const answers = kinds.map((k) => [k, probeAnswer(f, k)] as const);
    const wrong = answers.filter(([, a]) => a && is2xx(a.status) === refuse);
    if (wrong.length > 0)
      return fail(
        wrong.map(([k, a]) =>
          ev(a!.d, `${k.replace('_', ' ')} probe answered ${a!.status}; expected ${refuse ? 'a refusal (4xx)' : 'a 2xx'}`),
        ),
      );
    if (answers.some(([, a]) => !a)) {
      const missing = answers.filter(([, a]) => !a).map(([k]) => k);
      return notExercised(
        receiving(f),
        receiving(f) ? `no answer yet to the ${missing.join(' and ')} probe (sent after the receiver acknowledges a delivery)` : undefined,
      );
    }
    return pass(answers.map(([k, a]) => ev(a!.d, `${k.replace('_', ' ')} probe answered ${a!.status}`)));
  };
}

export const ackFast: CheckDef = {
  id: 'ack_fast',
  side: 'receiver',
  clause: 'spec §6.5 rule 1',
  title: `Deliveries are acknowledged with a 2xx within ${ACK_WITHIN_MS / 1000} s`,
  fix: 'answer 2xx as soon as the signature is checked and the event stored; do the work afterwards (a queue)',
  run(f) {
    const bad: Evidence[] = [];
    let fast: DeliveryFact | undefined;
    for (const d of ordinary(f)) {
      for (const a of d.attempts) {
        if ((is2xx(a.status) && a.ms >= ACK_WITHIN_MS) || (a.error ?? '').startsWith('timed out'))
          bad.push(ev(d, `answered ${a.status ?? a.error} after ${a.ms} ms`));
        else if (is2xx(a.status)) fast ??= d;
      }
    }
    if (bad.length > 0) return fail(bad);
    return fast
      ? pass([ev(fast, 'acknowledged in time'), { note: `every acknowledgement within ${ACK_WITHIN_MS} ms` }])
      : notExercised(receiving(f));
  },
};

export const verifySignature: CheckDef = {
  id: 'verify_signature',
  side: 'receiver',
  clause: 'spec §6.4',
  title: 'A delivery with a bad signature or a tampered body is refused',
  fix: 'compute the HMAC over the raw body bytes as received (before JSON parsing) and compare in constant time; answer 401 when it differs',
  run: probeCheck(['bad_signature', 'tampered_body'], true),
};

export const staleTimestamp: CheckDef = {
  id: 'stale_timestamp',
  side: 'receiver',
  clause: 'spec §6.5 rule 3',
  title: 'A delivery with a stale svc-timestamp is refused',
  fix: 'refuse a delivery whose svc-timestamp is more than 5 minutes from your clock, before processing it',
  run: probeCheck(['stale_timestamp'], true),
};

export const duplicates: CheckDef = {
  id: 'duplicates',
  side: 'receiver',
  clause: 'spec §6.5 rule 4',
  title: 'A duplicate delivery is acknowledged (2xx) and not processed twice',
  fix: 'key processing on data.reference + event; answer 2xx to one already processed',
  run: probeCheck(['duplicate'], false),
};

export const outOfOrder: CheckDef = {
  id: 'out_of_order',
  side: 'receiver',
  clause: 'CONTRACT §6',
  title: 'An older event delivered after a newer one is acknowledged',
  fix: 'acknowledge every well-signed delivery; never move an order back to an older status (read the order when unsure)',
  run: probeCheck(['out_of_order'], false),
};

export const recovers: CheckDef = {
  id: 'recovers',
  side: 'receiver',
  clause: 'spec §6.5 rule 2',
  title: 'After a failed attempt, the retry is acknowledged',
  fix: 'make the receiver answer 2xx to a delivery it failed before (retries carry the same svc-delivery-id)',
  run(f) {
    const bad: Evidence[] = [];
    const good: Evidence[] = [];
    let failed = false;
    for (const d of ordinary(f)) {
      const first = d.attempts.findIndex((a) => !is2xx(a.status));
      if (first < 0) continue;
      failed = true;
      const retries = d.attempts.slice(first + 1);
      if (retries.some((a) => is2xx(a.status))) good.push(ev(d, `failed attempt ${first + 1}, then acknowledged`));
      else if (d.gaveUp) bad.push(ev(d, `every one of ${d.attempts.length} attempts failed`));
    }
    if (bad.length > 0) return fail(bad);
    return good.length > 0 ? pass(good) : notExercised(failed, failed ? 'a delivery failed and is still being retried' : undefined);
  },
};

export const RECEIVER_CHECKS: readonly CheckDef[] = [ackFast, verifySignature, staleTimestamp, duplicates, outOfOrder, recovers];
