import type { Server } from 'node:http';

/** What a graceful stop found and what it had to cut (the final log line, CONTRACT §9). */
export interface StopReport {
  /** Requests being answered when the stop began / still unanswered when the grace ran out. */
  requestsInFlight: number;
  requestsCut: number;
  /** Webhook attempts under way when the stop began / still under way when the grace ran out. */
  attemptsInFlight: number;
  attemptsCut: number;
  ms: number;
}

/** Counts the requests a server is answering, so a stop can wait for them. */
export function trackRequests(server: Server): { readonly count: number; drained(): Promise<void> } {
  let count = 0;
  const waiters: Array<() => void> = [];
  server.on('request', (_req, res) => {
    count++;
    res.once('close', () => {
      count--;
      if (count === 0) for (const w of waiters.splice(0)) w();
    });
  });
  return {
    get count() {
      return count;
    },
    drained: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

export interface GracefulStopDeps {
  server: Server;
  requests: ReturnType<typeof trackRequests>;
  /** Webhook attempts under way now, and a promise for when none is. */
  attempts: { readonly count: number; idle(): Promise<void> };
  /** The longest the stop waits for requests and attempts before cutting them. */
  graceMs: number;
  /** Host time in ms, for the report. */
  now: () => number;
  /**
   * Ends responses that never finish on their own (event streams), once the server has stopped
   * accepting connections, so they do not hold the stop for the whole grace.
   */
  endStreams?: () => void;
}

/**
 * Stops accepting connections, lets requests and webhook attempts in flight finish within
 * `graceMs` (idle keep-alive connections are closed at once and as they become idle), then
 * closes whatever is left. Never throws.
 */
export async function gracefulStop(deps: GracefulStopDeps): Promise<StopReport> {
  const { server, requests, attempts } = deps;
  const started = deps.now();
  const report = { requestsInFlight: requests.count, attemptsInFlight: attempts.count, requestsCut: 0, attemptsCut: 0 };
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  deps.endStreams?.();
  server.closeIdleConnections();
  // A keep-alive connection whose request finishes becomes idle: close it then, not at the end.
  const sweep = setInterval(() => server.closeIdleConnections(), 25);
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), deps.graceMs)));
  try {
    await Promise.race([Promise.all([requests.drained(), attempts.idle()]), grace]);
  } finally {
    clearInterval(sweep);
    clearTimeout(timer);
  }
  report.requestsCut = requests.count;
  report.attemptsCut = attempts.count;
  server.closeAllConnections();
  await closed;
  return { ...report, ms: deps.now() - started };
}
