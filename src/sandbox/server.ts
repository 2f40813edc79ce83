import { createServer, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { answerClientError } from '../http/edge/client-error';
import { gracefulStop, trackRequests, type StopReport } from '../http/edge/graceful';
import pino from 'pino';
import { DEFAULT_CONFIG } from './config';
import { configOf, createSandbox, type Sandbox, type SandboxOverrides } from './sandbox';
import { checkStatePath, readStateFile } from './state/file';

export interface RunningSandbox {
  sandbox: Sandbox;
  server: Server;
  url: string;
  /** Closes at once, cutting whatever is in flight (tests). */
  close(): Promise<void>;
  /**
   * The graceful stop of SIGINT/SIGTERM (CONTRACT §9): no new connections; requests and webhook
   * attempts in flight finish, within the webhook timeout plus a few seconds; logs what was
   * pending and what had to be cut.
   */
  shutdown(): Promise<ShutdownReport>;
}

/** How a graceful stop went; `saveError` when `--state` could not be written (exit non-zero). */
export type ShutdownReport = StopReport & { saveError?: string };

/**
 * A `--state` file at least this large is announced before it is read (about half a second of
 * loading here): a person watching the start is told why nothing answers yet. A smaller one is
 * not, so a file that cannot be loaded stops the start with its one line (CONTRACT §13).
 */
export const ANNOUNCED_STATE_BYTES = 32 * 1024 * 1024;

/** Beyond the webhook timeout, how long a graceful stop waits for requests in flight. */
const SHUTDOWN_MARGIN_MS = 5_000;

/** Whether a listen address is a wildcard, every interface: `0.0.0.0`, `::` (`[::]`, `::0`…). */
export function isWildcardHost(listen: string): boolean {
  const bare = listen.replace(/^\[(.*)\]$/, '$1');
  return bare === '0.0.0.0' || (isIP(bare) === 6 && /^[0:]+$/.test(bare));
}

/**
 * The host of the sandbox's URL (banner, ready file, `startServer().url`): the listen address,
 * except that a wildcard is no address to call, so its URL names the loopback of the same family
 * (`127.0.0.1` for `0.0.0.0`, `[::1]` for `::`), which it also listens on and which a port
 * published on the host's loopback (`-p 127.0.0.1:4010:4010`) reaches. IPv6 in brackets.
 */
export function urlHost(listen: string): string {
  const bare = listen.replace(/^\[(.*)\]$/, '$1');
  if (isWildcardHost(bare)) return bare === '0.0.0.0' ? '127.0.0.1' : '[::1]';
  return isIP(bare) === 6 ? `[${bare}]` : bare;
}

/** Creates a sandbox and listens on `config.host:config.port` (port 0: any free port). */
export async function startServer(overrides: SandboxOverrides = {}): Promise<RunningSandbox> {
  // Before anything uses a value (pino its log level, the state file its path).
  configOf(overrides);
  // CONTRACT §13: a --state path that cannot be written is refused now, not at the first save;
  // the file, when it exists, is read (streamed when large) before anything else starts.
  const statePath = overrides.statePath;
  let initialState = overrides.initialState;
  let stateReadMs: number | undefined;
  // The sandbox's logger, made now: a large file takes seconds to load (about 9 s for 200,000
  // orders), and the start says so before it reads one.
  const logger = overrides.logger ?? pino({ level: overrides.logLevel ?? DEFAULT_CONFIG.logLevel });
  if (statePath && !initialState) {
    await checkStatePath(statePath);
    const reading = performance.now();
    initialState = await readStateFile(statePath, {
      onReading: (bytes) => {
        if (bytes >= ANNOUNCED_STATE_BYTES)
          logger.info({ path: statePath, bytes }, 'loading the state file: the sandbox answers once it is loaded');
      },
    });
    stateReadMs = performance.now() - reading;
  }
  const sandbox = createSandbox({ ...overrides, initialState, logger, ...(stateReadMs === undefined ? {} : { stateReadMs }) });
  // Koa's listen() with one option: Node answers an HTTP/1.1 request without a Host header with a
  // bare 400 of its own; the edge answers it instead, in the error envelope (CONTRACT §9).
  const server = createServer({ requireHostHeader: false }, sandbox.app.callback()).listen(sandbox.config.port, sandbox.config.host);
  server.on('clientError', answerClientError);
  const requests = trackRequests(server);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    sandbox.close(); // the port was taken: stop the clock's host timer too
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  return {
    sandbox,
    server,
    url: `http://${urlHost(sandbox.config.host)}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        sandbox.close();
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
    async shutdown() {
      const { dispatcher, logger, wall } = sandbox;
      logger.info(
        { requestsInFlight: requests.count, attemptsInFlight: dispatcher.inFlightCount },
        'shutting down: finishing requests and webhook attempts in flight',
      );
      const report = await gracefulStop({
        server,
        requests,
        attempts: {
          get count() {
            return dispatcher.inFlightCount;
          },
          idle: () => dispatcher.idle(),
        },
        graceMs: sandbox.config.webhookTimeoutMs + SHUTDOWN_MARGIN_MS,
        now: () => wall.now(),
        // Event streams (the dashboard's, tails, listeners) are requests that never finish on their
        // own: ended as soon as the server stops accepting, they do not hold the stop (issue 20: a
        // dashboard tab held it for the whole grace); a listener's pending attempts fail and stay
        // scheduled for retry.
        endStreams: () => sandbox.closeStreams(),
      });
      sandbox.close();
      let saveError: string | undefined;
      if (sandbox.config.statePath) {
        try {
          const bytes = await sandbox.saveState();
          logger.info(
            { path: sandbox.config.statePath, bytes, orders: sandbox.orders.store.orders.size, timers: sandbox.clock.pending },
            'state saved',
          );
        } catch (err) {
          // CONTRACT §13: a lost save is loud, and the exit code says so (the caller exits non-zero).
          saveError = (err as Error).message;
          logger.error({ err, path: sandbox.config.statePath }, 'state could not be saved: the state of this run is lost');
        }
      }
      const pending = {
        ...report,
        pendingTimers: sandbox.clock.pending,
        retryingDeliveries: dispatcher.list().filter((d) => d.status === 'retrying').length,
      };
      if (report.requestsCut > 0 || report.attemptsCut > 0)
        logger.warn(pending, 'stopped: cut work still in flight after the grace period');
      else logger.info(pending, 'stopped: nothing in flight was cut');
      return saveError === undefined ? report : { ...report, saveError };
    },
  };
}
