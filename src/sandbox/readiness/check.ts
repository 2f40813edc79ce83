// The shape every readiness check shares (CONTRACT §21): a pure function over a run's facts.
import type { RunFacts } from './facts';

export type CheckStatus = 'pass' | 'fail' | 'not_exercised';

/** One piece of evidence: what a partner looks up (a request, a delivery, an order) and why it counts. */
export interface Evidence {
  request_id?: string;
  delivery_id?: string;
  order?: string;
  note: string;
}

/** What a check found: its status, whether it applies to what the partner used, and why. */
export interface Outcome {
  status: CheckStatus;
  /** Whether the partner used what the check watches (a `not_exercised` check that applies makes the run `incomplete`). */
  applies: boolean;
  evidence: Evidence[];
}

export interface CheckContext {
  /** The run is being finished: what has not happened by now will not (a 409 never followed by a read). */
  final: boolean;
  /** The run sends its probes (CONTRACT §21): a note may promise one only then. */
  probes: boolean;
}

export interface CheckDef {
  id: string;
  side: 'client' | 'receiver';
  /** The clause of the spec (or of CONTRACT) it enforces. */
  clause: string;
  title: string;
  /** One line a partner engineer can act on when it does not pass. */
  fix: string;
  run(facts: RunFacts, ctx: CheckContext): Outcome;
}

/** Evidence kept per check at most (CONTRACT §21: memory per run is bounded). */
export const MAX_EVIDENCE = 20;

export const pass = (evidence: Evidence[]): Outcome => ({ status: 'pass', applies: true, evidence });
export const fail = (evidence: Evidence[]): Outcome => ({ status: 'fail', applies: true, evidence });
export const notExercised = (applies: boolean, note?: string): Outcome => ({
  status: 'not_exercised',
  applies,
  evidence: note ? [{ note }] : [],
});

export const is2xx = (status: number | null): boolean => status !== null && status >= 200 && status < 300;
