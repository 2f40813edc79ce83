// The receiver checks of CONTRACT §21: how a partner's webhook receiver answers, read from the
// delivery log. The probes (one adversarial delivery of each kind of CONTRACT §6) give the
// occasions, and so do the deliveries webhook chaos causes (CONTRACT §22: its duplicates and
// reordered deliveries count for `duplicates` and `out_of_order`; its delayed ones, ordinary
// deliveries, for `ack_fast` and `recovers`); each check passes only on the receiver's answer
// to them, never by default.
import { fail, is2xx, notExercised, pass, type CheckDef, type Evidence } from './check';
import type { DeliveryFact, RunFacts } from './facts';
import type { ProbeKind } from '../../webhooks';

/** Spec §6.5 rule 1 "quickly": a 2xx within this many wall ms. */
const ACK_WITHIN_MS = 5000;

const ev = (d: DeliveryFact, note: string): Evidence => ({ delivery_id: d.id, ...(d.order ? { order: d.order } : {}), note });
/** Deliveries of the lifecycle aimed at the receiver (probes aside). */
const ordinary = (f: RunFacts): DeliveryFact[] => f.deliveries.filter((d) => !d.probe && d.aimed);
/** Whether the receiver was sent anything to answer: the receiver checks apply. */
const receiving = (f: RunFacts): boolean => ordinary(f).some((d) => d.attempts.length > 0);

/**
 * The probe of a kind and how its one attempt ended, once it has: the receiver's HTTP status, or
 * null with the error when it gave none (timed out, connection reset). A probe is sent once and
 * never retried, so no answer is the receiver's answer; it stayed "no answer yet" for ever.
 */
function probeAnswer(f: RunFacts, kind: ProbeKind): { d: DeliveryFact; status: number | null; error: string | null } | undefined {
  for (const d of f.deliveries) {
    const attempt = d.probe === kind && d.aimed ? d.attempts[0] : undefined;
    if (attempt && (attempt.status !== null || !NOT_THE_RECEIVERS.test(attempt.error ?? ''))) {
      return { d, status: attempt.status, error: attempt.error };
    }
  }
  return undefined;
}

/**
 * Attempt errors that say nothing of how the receiver treats a probe: nothing listened, the
 * name did not resolve, the listener relaying it went away, the sandbox stopped.
 */
const NOT_THE_RECEIVERS = /^(?:connection refused|host not found|listener disconnected|listener replaced|sandbox stopping)/;

const probeName = (kind: ProbeKind) => kind.replaceAll('_', ' ');

/** A check on probes the receiver must refuse (`refuse`) or acknowledge. */
function probeCheck(kinds: readonly ProbeKind[], refuse: boolean): CheckDef['run'] {
  return (f, ctx) => {
    const answers = kinds.map((k) => [k, probeAnswer(f, k)] as const);
    const wrong = answers.filter(([, a]) => a && (a.status === null || is2xx(a.status) === refuse));
    const expected = refuse ? 'a refusal (4xx)' : 'a 2xx';
    if (wrong.length > 0)
      return fail(
        wrong.map(([k, a]) =>
          a!.status === null
            ? ev(a!.d, `${probeName(k)} probe got no answer (${a!.error ?? 'none'}); expected ${expected}`)
            : ev(a!.d, `${probeName(k)} probe answered ${a!.status}; expected ${expected}`),
        ),
      );
    if (answers.some(([, a]) => !a)) {
      const missing = answers.filter(([, a]) => !a).map(([k]) => k);
      const why = ctx.probes
        ? `no answer yet to the ${missing.map(probeName).join(' and ')} probe (sent after the receiver acknowledges a delivery)`
        : 'the run sends no probes (probes: false): only its probe would show this';
      return notExercised(receiving(f), receiving(f) ? why : undefined);
    }
    return pass(answers.map(([k, a]) => ev(a!.d, `${probeName(k)} probe answered ${a!.status}`)));
  };
}

/** How the receiver has answered a delivery so far: a 2xx on some attempt, only HTTP refusals, or nothing yet. */
function answerOf(d: DeliveryFact): { acked: boolean; status: number } | undefined {
  const answered = d.attempts.flatMap((a) => (a.status === null ? [] : [a.status]));
  const ok = answered.find((status) => is2xx(status));
  if (ok !== undefined) return { acked: true, status: ok };
  return answered.length > 0 ? { acked: false, status: answered[0] as number } : undefined;
}

/**
 * What webhook chaos's deliveries show (CONTRACT §22 "deliveries it causes count in readiness
 * runs"): `pass` evidence where the receiver acknowledged one, `fail` where it refused one with
 * an HTTP answer, as it would be for the probe of the same kind.
 */
interface ChaosFinding {
  pass: Evidence[];
  fail: Evidence[];
}

/** The chaos copy of a delivery and its original, both counted by the run, in the order their first attempts started. */
function chaosPairs(f: RunFacts): Array<[DeliveryFact, DeliveryFact]> {
  const index = new Map(f.deliveries.map((d, i) => [d.id, i]));
  const pairs: Array<[DeliveryFact, DeliveryFact]> = [];
  f.deliveries.forEach((twin, i) => {
    const j = twin.duplicateOf === undefined ? undefined : index.get(twin.duplicateOf);
    // The facts are in the order first attempts started (runs.ts adds one as it starts).
    if (j !== undefined) pairs.push(j < i ? [f.deliveries[j]!, twin] : [twin, f.deliveries[j]!]);
  });
  return pairs;
}

/**
 * `duplicates` from chaos: the same delivery sent twice (spec §6.5 rule 4). Whichever copy came
 * second is the duplicate the receiver sees: both acknowledged is a pass; one acknowledged and
 * the other refused is a fail, whatever the order (a receiver serving both at once may refuse
 * either).
 */
function chaosDuplicates(f: RunFacts): ChaosFinding {
  const found: ChaosFinding = { pass: [], fail: [] };
  for (const [first, second] of chaosPairs(f)) {
    const a = answerOf(first);
    const b = answerOf(second);
    if (a?.acked && b?.acked) found.pass.push(ev(second, `chaos duplicate (same body as ${first.id}) acknowledged with ${b.status}`));
    else if (a?.acked && b && !b.acked)
      found.fail.push(
        ev(second, `chaos duplicate of ${first.id} answered ${b.status} after the first copy was acknowledged; expected a 2xx`),
      );
    else if (b?.acked && a && !a.acked)
      found.fail.push(ev(first, `answered ${a.status} while its chaos duplicate ${second.id} was acknowledged; expected a 2xx to both`));
  }
  return found;
}

/**
 * `out_of_order` from chaos: a delivery marked `reordered` arrived after a later event of its
 * order. One overtaken only by its own chaos copy is a duplicate, not an older event, and is
 * left to `duplicates`.
 */
function chaosOutOfOrder(f: RunFacts): ChaosFinding {
  const found: ChaosFinding = { pass: [], fail: [] };
  const copyWentFirst = new Set(chaosPairs(f).map(([, second]) => second.id));
  for (const d of f.deliveries) {
    if (!d.chaos?.includes('reordered') || copyWentFirst.has(d.id)) continue;
    const answer = answerOf(d);
    if (answer?.acked)
      found.pass.push(ev(d, `reordered by chaos (a later event of its order went first), acknowledged with ${answer.status}`));
    else if (answer)
      found.fail.push(ev(d, `reordered by chaos (a later event of its order went first), answered ${answer.status}; expected a 2xx`));
  }
  return found;
}

/** A probe check's outcome joined with what chaos showed: a fail on either fails; a pass on either passes. */
function withChaos(probe: CheckDef['run'], chaos: (f: RunFacts) => ChaosFinding): CheckDef['run'] {
  return (f, ctx) => {
    const probed = probe(f, ctx);
    const found = chaos(f);
    if (probed.status === 'fail' || found.fail.length > 0)
      return fail([...(probed.status === 'fail' ? probed.evidence : []), ...found.fail]);
    if (probed.status === 'pass' || found.pass.length > 0)
      return pass([...(probed.status === 'pass' ? probed.evidence : []), ...found.pass]);
    return probed;
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
  // Only the answer is seen: whether the receiver processed it twice is its own business (the fix says how not to).
  title: 'A duplicate delivery is acknowledged (2xx)',
  fix: 'key processing on data.reference + event; answer 2xx to one already processed',
  run: withChaos(probeCheck(['duplicate'], false), chaosDuplicates),
};

export const outOfOrder: CheckDef = {
  id: 'out_of_order',
  side: 'receiver',
  clause: 'CONTRACT §6',
  title: 'An older event delivered after a newer one is acknowledged',
  fix: 'acknowledge every well-signed delivery; never move an order back to an older status (read the order when unsure)',
  run: withChaos(probeCheck(['out_of_order'], false), chaosOutOfOrder),
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
