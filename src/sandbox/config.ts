import { parseArgs } from 'node:util';
import * as z from 'zod';
import { DEFAULT_FIXTURES_DIR, DEFAULT_RATE_VOLATILITY, MAX_RATE_VOLATILITY, RATE_MODES, type RateMode } from '../reference';
import { parseDuration, type ClockMode } from '../clock';
import { DEFAULT_TIMINGS, type LifecycleTimings } from '../orders/order.machine';
import { DEFAULT_DISPATCHER_OPTIONS, DEFAULT_RETRY_SCHEDULE_MS } from '../webhooks';
import { hostNameOf } from '../http/edge/admin';
import { DEFAULT_INSPECT_LIMIT } from '../http/inspector/request-log';
import { MAX_DELAY_MS, MAX_INSTANT, MAX_SPEED } from '../shared/schemas';

/** Lifecycle steps whose delay `--lifecycle` may set (the pay-in window has its own flag). */
const LIFECYCLE_STEPS = ['provisioning', 'processing', 'routing', 'lpAssignment', 'payout', 'settlement', 'refund'] as const;

/** Everything the sandbox can be told at start-up (CONTRACT §1). */
export interface SandboxConfig {
  port: number;
  host: string;
  clockMode: ClockMode;
  /** Virtual seconds per wall second in realtime mode. */
  speed: number;
  seed: number;
  fixturesDir: string;
  adminToken: string | undefined;
  /** Allowed request timestamp skew, ms (CONTRACT §3: 300 s). */
  skewMs: number;
  rateLimit: { capacity: number; refillPerSecond: number };
  logLevel: string;
  /** Virtual start time, Unix ms; undefined: the wall clock at start. */
  clockStart: number | undefined;
  /** Quote lifetime, virtual ms (default 60 s). */
  quoteTtlMs: number;
  /** Pay-in window, virtual ms (CONTRACT §8: 30 min). */
  payinWindowMs: number;
  /** Virtual delays of the lifecycle steps that override the defaults (docs/lifecycle.md). */
  lifecycleDelays: Partial<LifecycleTimings>;
  /** Wall ms a webhook receiver has to answer (CONTRACT §5: 15 s). */
  webhookTimeoutMs: number;
  /** Virtual delays before webhook attempts 2..n (CONTRACT §5). */
  webhookRetryScheduleMs: number[];
  /** How many /v1 requests the inspector keeps (CONTRACT §11). */
  inspectLimit: number;
  /** CONTRACT §9: orders kept at most; beyond it the oldest finished ones are evicted. */
  maxOrders: number;
  /** CONTRACT §13: `--state FILE`, loaded at start when it exists, saved on stop. */
  statePath?: string;
  /** CONTRACT §18: `--ready-file FILE`, written by `serve` once listening (URL, pid, demo keys). */
  readyFile?: string;
  /**
   * CONTRACT §4: `Host` names /sandbox answers besides localhost, 127.0.0.1, [::1] and `host`
   * (`--allowed-host`, repeatable; `SANDBOX_ALLOWED_HOSTS`, comma-separated): lower case, no port.
   */
  allowedHosts: string[];
  /** CONTRACT §22: `fixed` (the fixtures' rates) or `walk` (a seeded random walk from them). */
  rates: RateMode;
  /** CONTRACT §22: the walk's volatility, percent per virtual hour. */
  rateVolatility: number;
}

export const DEFAULT_CONFIG: SandboxConfig = {
  port: 4010,
  host: '127.0.0.1',
  clockMode: 'realtime',
  speed: 1,
  seed: 1,
  fixturesDir: DEFAULT_FIXTURES_DIR,
  adminToken: undefined,
  skewMs: 300_000,
  rateLimit: { capacity: 60, refillPerSecond: 30 },
  logLevel: 'info',
  clockStart: undefined,
  quoteTtlMs: 60_000,
  payinWindowMs: DEFAULT_TIMINGS.payinWindow,
  lifecycleDelays: {},
  webhookTimeoutMs: DEFAULT_DISPATCHER_OPTIONS.timeoutMs,
  webhookRetryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
  inspectLimit: DEFAULT_INSPECT_LIMIT,
  maxOrders: 200_000,
  allowedHosts: [],
  rates: 'fixed',
  rateVolatility: DEFAULT_RATE_VOLATILITY,
};

export const USAGE = `Usage: ramp-sandbox [serve] [options]   (from a clone: npm start -- [options])

  --port N            listen port (PORT; default 4010, 0 = any free port)
  --host H            listen address (HOST; default 127.0.0.1)
  --clock MODE        realtime | manual (SANDBOX_CLOCK; default realtime)
  --speed N           virtual seconds per wall second in realtime mode (SANDBOX_SPEED; default 1)
  --seed N            same seed: same demo keys, references and faker data (SANDBOX_SEED; default 1)
  --fixtures DIR      reference data directory replacing the shipped fixtures/ (SANDBOX_FIXTURES)
  --admin-token T     require Bearer T on /sandbox (SANDBOX_ADMIN_TOKEN)
  --allowed-host H    without --admin-token, /sandbox answers only Host localhost, 127.0.0.1,
                      [::1] and --host; this adds H (repeatable; SANDBOX_ALLOWED_HOSTS, comma-separated)
  --skew-seconds N    allowed svc-timestamp skew (SANDBOX_SKEW_SECONDS; default 300)
  --rate-capacity N   token bucket size per key (SANDBOX_RATE_CAPACITY; default 60)
  --rate-refill N     tokens per second per key (SANDBOX_RATE_REFILL; default 30)
  --clock-start ISO   virtual start time (SANDBOX_CLOCK_START; default now)
  --quote-ttl D       quote lifetime, virtual (SANDBOX_QUOTE_TTL; default 60s)
  --payin-window D    pay-in window, virtual (SANDBOX_PAYIN_WINDOW; default 30m)
  --lifecycle L       virtual step delays, e.g. processing=30s,payout=10m (SANDBOX_LIFECYCLE);
                      steps: provisioning, processing, routing, lpAssignment, payout, settlement, refund
  --webhook-timeout D  wall time a receiver has to answer 2xx (SANDBOX_WEBHOOK_TIMEOUT; default 15s)
  --webhook-retries L  virtual delays before attempts 2..n, comma-separated
                       (SANDBOX_WEBHOOK_RETRIES; default 5s,5m,30m,2h,5h,10h,10h)
  --inspect-limit N   /v1 requests the inspector keeps (SANDBOX_INSPECT_LIMIT; default 10000)
  --state FILE        load the state from FILE at start (when it exists), save it there on
                      SIGINT/SIGTERM and POST /sandbox/state/save (SANDBOX_STATE)
  --ready-file FILE   once listening, write {url, pid, version, client_id, keys} (the demo
                      partner) to FILE atomically, for test harnesses in any language; removed
                      on stop (SANDBOX_READY_FILE)
  --max-orders N      orders kept in memory; beyond it the oldest finished ones are evicted,
                      and a create is refused (409) while none can be (SANDBOX_MAX_ORDERS;
                      default 200000)
  --rates MODE        fixed | walk: market rates as in the fixtures, or a random walk from them
                      seeded by --seed on the virtual clock (SANDBOX_RATES; default fixed)
  --rate-volatility P  the walk's volatility, percent per virtual hour (SANDBOX_RATE_VOLATILITY;
                      default 1, at most 100)
  --log-level L       pino level: fatal|error|warn|info|debug|silent (LOG_LEVEL; default info)
  --help              this text
`;

/** Thrown for a bad flag or variable; the CLI prints it with the usage. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads flags, then env vars, then defaults. The only reader of process.env is its caller. */
export function loadConfig(argv: string[], env: Record<string, string | undefined>): SandboxConfig | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      clock: { type: 'string' },
      speed: { type: 'string' },
      seed: { type: 'string' },
      fixtures: { type: 'string' },
      'admin-token': { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      'skew-seconds': { type: 'string' },
      'rate-capacity': { type: 'string' },
      'rate-refill': { type: 'string' },
      'clock-start': { type: 'string' },
      'log-level': { type: 'string' },
      'quote-ttl': { type: 'string' },
      'payin-window': { type: 'string' },
      'webhook-timeout': { type: 'string' },
      lifecycle: { type: 'string' },
      'webhook-retries': { type: 'string' },
      'inspect-limit': { type: 'string' },
      'max-orders': { type: 'string' },
      state: { type: 'string' },
      'ready-file': { type: 'string' },
      rates: { type: 'string' },
      'rate-volatility': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return 'help';
  const pick = (flag: string | undefined, name: string) => flag ?? env[name];
  const num = (raw: string | undefined, name: string, fallback: number, check: (n: number) => boolean) => {
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || !check(n)) throw new ConfigError(`${name}: ${raw} is not valid`);
    return n;
  };
  const mode = pick(values.clock, 'SANDBOX_CLOCK') ?? DEFAULT_CONFIG.clockMode;
  if (mode !== 'realtime' && mode !== 'manual') throw new ConfigError(`--clock: ${mode} is not realtime or manual`);
  const startRaw = pick(values['clock-start'], 'SANDBOX_CLOCK_START');
  const clockStart = startRaw ? Date.parse(startRaw) : undefined;
  if (startRaw && !Number.isFinite(clockStart)) throw new ConfigError(`--clock-start: ${startRaw} is not an ISO date`);
  // The clock's range (CONTRACT §13): dates render as RFC 3339, and what is saved loads again.
  if (clockStart !== undefined && !(clockStart >= 0 && clockStart <= MAX_INSTANT)) {
    throw new ConfigError(
      `--clock-start: ${startRaw} is outside the clock's range (1970-01-01T00:00:00.000Z to ${new Date(MAX_INSTANT).toISOString()})`,
    );
  }
  const duration = (raw: string | undefined, name: string, fallback: number) => {
    if (raw === undefined || raw === '') return fallback;
    const ms = parseDuration(raw);
    if (ms === undefined || ms <= 0) throw new ConfigError(`${name}: ${raw} is not a duration such as 60s, 30m or 1h`);
    // As an advance (CONTRACT §9): the clock's ceiling leaves room for delays of this length only.
    if (ms > MAX_DELAY_MS) throw new ConfigError(`${name}: ${raw} is longer than 10 years (3650d)`);
    return ms;
  };
  const retriesRaw = pick(values['webhook-retries'], 'SANDBOX_WEBHOOK_RETRIES');
  const webhookRetryScheduleMs = retriesRaw
    ? retriesRaw.split(',').map((part) => duration(part.trim(), '--webhook-retries', 0))
    : DEFAULT_CONFIG.webhookRetryScheduleMs;
  const lifecycleDelays: Partial<LifecycleTimings> = {};
  const lifecycleRaw = pick(values.lifecycle, 'SANDBOX_LIFECYCLE');
  for (const part of lifecycleRaw ? lifecycleRaw.split(',') : []) {
    const [name = '', value = ''] = part.split('=').map((x) => x.trim());
    if (!LIFECYCLE_STEPS.includes(name as (typeof LIFECYCLE_STEPS)[number])) {
      throw new ConfigError(`--lifecycle: unknown step ${name}; steps: ${LIFECYCLE_STEPS.join(', ')}`);
    }
    lifecycleDelays[name as (typeof LIFECYCLE_STEPS)[number]] = duration(value, `--lifecycle ${name}`, 0);
  }
  const rates = pick(values.rates, 'SANDBOX_RATES') || DEFAULT_CONFIG.rates;
  if (!RATE_MODES.includes(rates as RateMode)) throw new ConfigError(`--rates: ${rates} is not fixed or walk`);
  const allowedRaw = values['allowed-host'] ?? (env.SANDBOX_ALLOWED_HOSTS ? [env.SANDBOX_ALLOWED_HOSTS] : []);
  const allowedHosts: string[] = [];
  for (const given of allowedRaw
    .flatMap((value) => value.split(','))
    .map((part) => part.trim())
    .filter(Boolean)) {
    const name = hostNameOf(given);
    if (name === undefined)
      throw new ConfigError(`--allowed-host: ${given} is not a host name such as sandbox.local, 192.168.1.5 or [fd00::1]`);
    if (!allowedHosts.includes(name)) allowedHosts.push(name);
  }
  return {
    allowedHosts,
    rates: rates as RateMode,
    rateVolatility: num(
      pick(values['rate-volatility'], 'SANDBOX_RATE_VOLATILITY'),
      '--rate-volatility',
      DEFAULT_CONFIG.rateVolatility,
      (n) => n >= 0 && n <= MAX_RATE_VOLATILITY,
    ),
    lifecycleDelays,
    webhookTimeoutMs: duration(
      pick(values['webhook-timeout'], 'SANDBOX_WEBHOOK_TIMEOUT'),
      '--webhook-timeout',
      DEFAULT_CONFIG.webhookTimeoutMs,
    ),
    webhookRetryScheduleMs,
    quoteTtlMs: duration(pick(values['quote-ttl'], 'SANDBOX_QUOTE_TTL'), '--quote-ttl', DEFAULT_CONFIG.quoteTtlMs),
    payinWindowMs: duration(pick(values['payin-window'], 'SANDBOX_PAYIN_WINDOW'), '--payin-window', DEFAULT_CONFIG.payinWindowMs),
    port: num(pick(values.port, 'PORT'), '--port', DEFAULT_CONFIG.port, (n) => Number.isInteger(n) && n >= 0 && n < 65536),
    host: pick(values.host, 'HOST') || DEFAULT_CONFIG.host,
    clockMode: mode,
    speed: num(pick(values.speed, 'SANDBOX_SPEED'), '--speed', 1, (n) => n > 0 && n <= MAX_SPEED),
    seed: num(pick(values.seed, 'SANDBOX_SEED'), '--seed', DEFAULT_CONFIG.seed, Number.isInteger),
    fixturesDir: pick(values.fixtures, 'SANDBOX_FIXTURES') || DEFAULT_CONFIG.fixturesDir,
    adminToken: pick(values['admin-token'], 'SANDBOX_ADMIN_TOKEN') || undefined,
    skewMs: num(pick(values['skew-seconds'], 'SANDBOX_SKEW_SECONDS'), '--skew-seconds', 300, (n) => n > 0) * 1000,
    rateLimit: {
      capacity: num(pick(values['rate-capacity'], 'SANDBOX_RATE_CAPACITY'), '--rate-capacity', 60, (n) => n >= 2),
      refillPerSecond: num(pick(values['rate-refill'], 'SANDBOX_RATE_REFILL'), '--rate-refill', 30, (n) => n > 0),
    },
    inspectLimit: num(
      pick(values['inspect-limit'], 'SANDBOX_INSPECT_LIMIT'),
      '--inspect-limit',
      DEFAULT_CONFIG.inspectLimit,
      (n) => Number.isInteger(n) && n >= 1 && n <= 1_000_000,
    ),
    statePath: pick(values.state, 'SANDBOX_STATE') || undefined,
    readyFile: pick(values['ready-file'], 'SANDBOX_READY_FILE') || undefined,
    maxOrders: num(
      pick(values['max-orders'], 'SANDBOX_MAX_ORDERS'),
      '--max-orders',
      DEFAULT_CONFIG.maxOrders,
      (n) => Number.isInteger(n) && n >= 1 && n <= 100_000_000,
    ),
    logLevel: logLevel(pick(values['log-level'], 'LOG_LEVEL') || DEFAULT_CONFIG.logLevel),
    clockStart,
  };
}

/** pino's levels, and `silent`: what --log-level (LOG_LEVEL) takes. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * A number at least `min` (Infinity included: in process `rateLimit: {capacity: Infinity}` turns
 * the limit off, as a flag of 1e12 does); never NaN, never another type.
 */
const AtLeast = (min: number, exclusive = false) =>
  z.custom<number>((v) => typeof v === 'number' && (exclusive ? v > min : v >= min), {
    message: `must be a number ${exclusive ? 'above' : 'at least'} ${min}`,
  });

/** A delay in ms: from 0 (in process, a step at once) to 10 years, the most the clock sets ahead. */
const DelayMs = z.number().min(0).max(MAX_DELAY_MS);

/**
 * What a config may hold, for a config given as values (`startSandbox`, CONTRACT §14), where no
 * flag parser read it: NaN, a wrong type or an unknown option name is refused, by its name. A
 * NaN delay passed the types and made every route, /health included, answer 500 once the clock
 * moved; a seed of 1.5 gave seed 1's keys; a typo'd option was ignored. Never stricter than the
 * flags (`loadConfig`), nor than what worked in process before: every value those take, it takes.
 */
const SandboxConfigSchema = z.strictObject({
  port: z.custom<number | string>(
    (v) => {
      const n = typeof v === 'string' && /^\d{1,5}$/.test(v) ? Number(v) : v;
      return Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 65_535;
    },
    { message: 'must be a port number from 0 to 65535' },
  ),
  host: z.string().min(1),
  clockMode: z.enum(['realtime', 'manual']),
  speed: z.number().positive().max(MAX_SPEED),
  seed: z.number().refine(Number.isInteger, 'must be a whole number'),
  fixturesDir: z.string().min(1),
  adminToken: z.string().optional(),
  skewMs: AtLeast(0, true),
  rateLimit: z.strictObject({ capacity: AtLeast(2), refillPerSecond: AtLeast(0, true) }),
  logLevel: z.enum(LOG_LEVELS),
  clockStart: z.number().min(0).max(MAX_INSTANT).optional(),
  quoteTtlMs: DelayMs,
  payinWindowMs: DelayMs,
  lifecycleDelays: z.strictObject(Object.fromEntries(LIFECYCLE_STEPS.map((step) => [step, DelayMs.optional()]))),
  webhookTimeoutMs: DelayMs.refine((ms) => ms > 0, 'must be above 0'),
  webhookRetryScheduleMs: z.array(DelayMs),
  inspectLimit: z.int().min(0),
  maxOrders: z.int().min(1),
  statePath: z.string().min(1).optional(),
  readyFile: z.string().min(1).optional(),
  allowedHosts: z.array(z.string().refine((name) => hostNameOf(name) !== undefined, 'not a host name such as sandbox.local')),
  rates: z.enum(RATE_MODES),
  rateVolatility: z.number().min(0).max(MAX_RATE_VOLATILITY),
});

/**
 * The config, unless a value is NaN, of another type or out of its range, or a name is no option:
 * then a ConfigError naming the first (`quoteTtlMs: NaN is not valid (…)`).
 */
export function checkConfig(config: SandboxConfig): SandboxConfig {
  const result = SandboxConfigSchema.safeParse(config);
  if (result.success) return config;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String).join('.');
  const given = issue.path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], config);
  const shown = typeof given === 'number' || given === undefined ? String(given) : JSON.stringify(given)?.slice(0, 80);
  throw new ConfigError(
    issue.code === 'unrecognized_keys'
      ? `${issue.keys.map((key) => (path ? `${path}.${key}` : key)).join(', ')}: not an option of the sandbox`
      : `${path}: ${shown} is not valid (${issue.message})`,
  );
}

function logLevel(level: string): string {
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`--log-level: ${level} is not one of ${LOG_LEVELS.join(', ')}`);
  return level;
}
