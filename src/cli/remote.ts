import { parseArgs, type ParseArgsConfig } from 'node:util';
import { createControlClient, type ControlClient } from '../client/control-client';
import { SandboxError } from '../client/sandbox-error';

/** Where the verbs for a running sandbox look when `--sandbox` is not given (CONTRACT §17). */
const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The options every verb for a running sandbox takes (CONTRACT §17). */
const REMOTE_OPTIONS = {
  sandbox: { type: 'string', default: DEFAULT_SANDBOX_URL },
  'admin-token': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The usage lines of REMOTE_OPTIONS, for each verb's `--help`. */
export const REMOTE_USAGE = `  --sandbox URL       the running sandbox (default ${DEFAULT_SANDBOX_URL})
  --admin-token T     its admin token (default: $SANDBOX_ADMIN_TOKEN)
  --help, -h          this text`;

/**
 * What is wrong with a `--sandbox` value, or undefined when it is a sandbox's base URL: http or
 * https, no `user:password@` (fetch refuses a URL that carries them; the admin token has its own
 * option), no query or fragment (the verbs append their paths to it).
 */
export function sandboxUrlProblem(given: string): string | undefined {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return `is not a URL (e.g. ${DEFAULT_SANDBOX_URL})`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `is not an http or https URL (e.g. ${DEFAULT_SANDBOX_URL})`;
  if (url.username !== '' || url.password !== '') return 'carries a user name or password: give the admin token with --admin-token';
  // An empty one too (`…/?`): URL drops it, the verbs' paths would not.
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(given))
    return 'has a query or fragment: give the base URL only, e.g. http://host:4010';
  return undefined;
}

/** `given` with any password in it replaced by `***`, for a message. */
export function redactedUrl(given: string): string {
  try {
    const url = new URL(given);
    if (url.password === '') return given;
    url.password = '***';
    return url.href.replace(/\/$/, given.endsWith('/') ? '/' : '');
  } catch {
    return given;
  }
}

/** A refusal of the command line itself: printed with the usage, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** What a verb's run is handed: its parsed options, positionals and a client of the sandbox. */
export interface RemoteContext<V> {
  values: V;
  positionals: string[];
  /** The sandbox's base URL, without a trailing slash. */
  baseUrl: string;
  adminToken: string | undefined;
  control: ControlClient;
  /** Aborted on SIGINT/SIGTERM: a verb that follows a stream stops on it and exits 0. */
  signal: AbortSignal;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O & typeof REMOTE_OPTIONS; allowPositionals: true }>>['values'];

/**
 * Runs one verb for a running sandbox: parses `argv` (its own options plus `--sandbox` and
 * `--admin-token`), answers `--help`, and turns failures into one line on stderr and an exit
 * code: 2 for bad usage, 1 when the sandbox cannot be reached or refuses the call.
 */
export async function runRemote<O extends Options>(
  verb: string,
  usage: string,
  options: O,
  run: (context: RemoteContext<Values<O>>) => Promise<void>,
  argv: string[],
): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: O & typeof REMOTE_OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { ...options, ...REMOTE_OPTIONS } });
  } catch (error) {
    process.stderr.write(`ramp-sandbox ${verb}: ${(error as Error).message}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  const values = parsed.values as Values<O>;
  if ((values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return;
  }
  const baseUrl = String((values as { sandbox: string }).sandbox).replace(/\/+$/, '');
  const urlProblem = sandboxUrlProblem(baseUrl);
  if (urlProblem) {
    process.stderr.write(`ramp-sandbox ${verb}: --sandbox ${redactedUrl(baseUrl)} ${urlProblem}\n`);
    process.exitCode = 2;
    return;
  }
  const adminToken = (values as { 'admin-token'?: string })['admin-token'] ?? (process.env.SANDBOX_ADMIN_TOKEN || undefined);
  const abort = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    abort.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    // The signal aborts a call under way too: Ctrl-C never waits for a sandbox that does not answer.
    const control = createControlClient({ baseUrl, signal: abort.signal, ...(adminToken ? { adminToken } : {}) });
    await run({ values, positionals: parsed.positionals, baseUrl, adminToken, control, signal: abort.signal });
  } catch (error) {
    if (stoppedBy !== undefined && abort.signal.aborted) {
      // Stopped while waiting for the sandbox: the shell's code for the signal, one line.
      process.stderr.write(`ramp-sandbox ${verb}: stopped by ${stoppedBy}\n`);
      process.exitCode = stoppedBy === 'SIGINT' ? 130 : 143;
      return;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`ramp-sandbox ${verb}: ${error.message}\n\n${usage}`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`ramp-sandbox ${verb}: ${describeFailure(error, baseUrl)}\n`);
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/**
 * One line for why a call to the sandbox failed: the connection error (refused, unknown host,
 * reset) naming the URL, or the control API's refusal (status, code and message).
 */
export function describeFailure(error: unknown, baseUrl: string): string {
  if (error instanceof SandboxError) {
    const hint = error.status === 401 ? ' (pass --admin-token or set SANDBOX_ADMIN_TOKEN)' : '';
    return `${error.route} answered ${error.status} ${error.code}: ${error.message}${hint}`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const why = cause?.code ?? cause?.message ?? 'connection failed';
    return `cannot reach the sandbox at ${baseUrl} (${why}); start it with ramp-sandbox serve, or pass --sandbox URL`;
  }
  return (error as Error)?.message ?? String(error);
}
