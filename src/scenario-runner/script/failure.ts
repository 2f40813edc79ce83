import type { Envelope, Outcome, Reply } from '../partner/client';
import type { Step } from './schema';

/** What a step expected and what it saw, for the failure report. */
export class StepFailure extends Error {
  override name = 'StepFailure';
  constructor(
    message: string,
    readonly expected?: unknown,
    readonly seen?: unknown,
  ) {
    super(message);
  }
}

/** Call options for a step's /v1 request: a step that expects a 429 must see it, not wait it out. */
export function callFor(step: Step): { retry429: boolean } {
  return { retry429: step.expect_error?.status !== 429 };
}

/**
 * A step's answer (a /v1 reply or a control call's outcome): its `data` when it succeeded. A
 * failing answer (an error status or a dropped connection) becomes a StepFailure, unless the step
 * expects exactly that (`expect_error`); then the result is undefined.
 */
export function expectReply<T>(step: Pick<Step, 'expect_error'>, res: Reply<Envelope<T> | undefined> | Outcome<T>): T | undefined {
  if ('ok' in res) return expectOutcome(step, res);
  const wanted = step.expect_error;
  const seen = { status: res.status, code: res.body?.code, message: res.body?.message };
  if (wanted?.dropped) {
    if (!res.dropped) throw new StepFailure('expected the connection to be closed without an answer', wanted, seen);
    return undefined;
  }
  if (res.dropped) {
    throw new StepFailure(
      'the connection was closed without an answer (an injected drop, reset or truncate? expect it with expect_error: {dropped: true})',
      wanted ?? 'a 2xx answer',
      { dropped: true },
    );
  }
  // CONTRACT §22: a 2xx whose body is not JSON (what an injected `malformed` answers).
  const notJson = res.status < 400 && res.body === undefined && res.text !== '';
  if (wanted?.malformed) {
    if (!notJson) throw new StepFailure('expected a 2xx answer whose body is not JSON', wanted, seen);
    return undefined;
  }
  if (notJson) {
    throw new StepFailure(
      'the answer was not JSON (an injected malformed? expect it with expect_error: {malformed: true})',
      wanted ?? 'a 2xx answer',
      { status: res.status, text: res.text.slice(0, 200) },
    );
  }
  if (wanted) {
    if (res.status < 400) throw new StepFailure('expected an error', wanted, { status: res.status, body: res.body });
    if (mismatches(wanted, seen)) throw new StepFailure('the error was not the expected one', wanted, seen);
    return undefined;
  }
  if (res.status >= 400 || res.status === 0) {
    const injected =
      res.body?.code === 'E_SANDBOX_FAULT'
        ? ` (${res.body.message}; expect it with expect_error: {status: ${res.status}, code: E_SANDBOX_FAULT})`
        : '';
    throw new StepFailure(`request failed with ${res.status}${injected}`, 'a 2xx answer', {
      ...seen,
      message: res.body?.message ?? res.text,
    });
  }
  return res.body?.data;
}

/** The control call's side of expectReply: the control client has parsed the envelope. */
function expectOutcome<T>(step: Pick<Step, 'expect_error'>, res: Outcome<T>): T | undefined {
  const wanted = step.expect_error;
  if (res.ok) {
    if (wanted?.dropped) throw new StepFailure('expected the connection to be closed without an answer', wanted, { data: res.data });
    if (wanted?.malformed) throw new StepFailure('expected a 2xx answer whose body is not JSON', wanted, { data: res.data });
    if (wanted) throw new StepFailure('expected an error', wanted, { data: res.data });
    return res.data;
  }
  const seen = { status: res.error.status, code: res.error.code, message: res.error.message };
  if (wanted?.dropped) throw new StepFailure('expected the connection to be closed without an answer', wanted, seen);
  if (wanted?.malformed) throw new StepFailure('expected a 2xx answer whose body is not JSON', wanted, seen);
  if (!wanted) throw new StepFailure(`request failed with ${seen.status}`, 'a 2xx answer', seen);
  if (mismatches(wanted, seen)) throw new StepFailure('the error was not the expected one', wanted, seen);
  return undefined;
}

function mismatches(wanted: NonNullable<Step['expect_error']>, seen: { status: number; code?: string; message?: string }): boolean {
  return (
    (wanted.status !== undefined && wanted.status !== seen.status) ||
    (wanted.code !== undefined && wanted.code !== seen.code) ||
    (wanted.message !== undefined && !String(seen.message ?? '').includes(wanted.message))
  );
}

/** A reply or control outcome that must be a success, outside any step's expectations (reads, set-up). */
export function dataOf<T>(what: string, res: Reply<Envelope<T> | undefined> | Outcome<T>): T {
  if ('ok' in res) {
    if (!res.ok) throw new StepFailure(`${what} answered ${res.error.status}: ${res.error.message}`);
    return res.data;
  }
  if (res.status < 200 || res.status >= 300 || res.body === undefined) {
    throw new StepFailure(`${what} answered ${res.dropped ? 'nothing (connection closed)' : res.status}: ${res.body?.message ?? res.text}`);
  }
  return res.body.data;
}
