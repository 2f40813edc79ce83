import { describe, expect, it } from 'vitest';
import { checkConfig, ConfigError, DEFAULT_CONFIG, loadConfig, type SandboxConfig } from './config';

describe('loadConfig', () => {
  it('takes flags over env vars over defaults', () => {
    const c = loadConfig(['--port', '5000', '--clock', 'manual'], { PORT: '6000', SANDBOX_SEED: '9', SANDBOX_SPEED: '60' });
    expect(c).toMatchObject({ port: 5000, clockMode: 'manual', seed: 9, speed: 60, host: '127.0.0.1' });
    expect(loadConfig([], {})).toEqual(DEFAULT_CONFIG);
    expect(loadConfig(['--help'], {})).toBe('help');
    expect(loadConfig(['--max-orders', '500'], { SANDBOX_MAX_ORDERS: '7' })).toMatchObject({ maxOrders: 500 });
    expect(loadConfig([], { SANDBOX_MAX_ORDERS: '7' })).toMatchObject({ maxOrders: 7 });
    expect(DEFAULT_CONFIG.maxOrders).toBe(200_000);
  });

  // Every duration flag, each from its flag and from its env var, and the lifecycle delays exactly:
  // the steps not named keep no delay of their own (the lifecycle's defaults apply), not a guess.
  it('reads durations, the retry schedule and lifecycle delays', () => {
    const read = (args: string[], env: Record<string, string>) => {
      const c = loadConfig(args, env);
      if (c === 'help') throw new Error('no --help given, yet loadConfig answered help');
      const { quoteTtlMs, payinWindowMs, webhookTimeoutMs, webhookRetryScheduleMs, lifecycleDelays } = c;
      return { quoteTtlMs, payinWindowMs, webhookTimeoutMs, webhookRetryScheduleMs, lifecycleDelays };
    };
    const expected = {
      quoteTtlMs: 120_000,
      payinWindowMs: 3_600_000,
      webhookTimeoutMs: 2_500,
      webhookRetryScheduleMs: [1000, 10_000],
      lifecycleDelays: { processing: 30_000, payout: 600_000 },
    };
    const flags = [
      '--quote-ttl',
      '2m',
      '--payin-window',
      '1h',
      '--webhook-timeout',
      '2.5s',
      '--webhook-retries',
      '1s, 10s',
      '--lifecycle',
      'processing=30s,payout=10m',
    ];
    expect(read(flags, {})).toEqual(expected);
    const env = {
      SANDBOX_QUOTE_TTL: '2m',
      SANDBOX_PAYIN_WINDOW: '1h',
      SANDBOX_WEBHOOK_TIMEOUT: '2.5s',
      SANDBOX_WEBHOOK_RETRIES: '1s, 10s',
      SANDBOX_LIFECYCLE: 'processing=30s,payout=10m',
    };
    expect(read([], env)).toEqual(expected);
    expect(read([], {})).toEqual({
      quoteTtlMs: DEFAULT_CONFIG.quoteTtlMs,
      payinWindowMs: DEFAULT_CONFIG.payinWindowMs,
      webhookTimeoutMs: DEFAULT_CONFIG.webhookTimeoutMs,
      webhookRetryScheduleMs: DEFAULT_CONFIG.webhookRetryScheduleMs,
      lifecycleDelays: {},
    });
  });

  it('reads --allowed-host (repeatable, comma-separated too) over SANDBOX_ALLOWED_HOSTS, as lower-case names without a port', () => {
    expect(DEFAULT_CONFIG.allowedHosts).toEqual([]);
    expect(
      loadConfig(['--allowed-host', 'Sandbox.Test:8080', '--allowed-host', 'b.test,192.168.1.5', '--allowed-host', 'fd00::1'], {
        SANDBOX_ALLOWED_HOSTS: 'env.test',
      }),
    ).toMatchObject({
      allowedHosts: ['sandbox.test', 'b.test', '192.168.1.5', '[fd00::1]'],
    });
    expect(loadConfig([], { SANDBOX_ALLOWED_HOSTS: 'a.test, B.test ,,a.test' })).toMatchObject({ allowedHosts: ['a.test', 'b.test'] });
    for (const bad of ['http://a.test', 'a test', 'user@a.test', 'a.test/x']) {
      expect(() => loadConfig(['--allowed-host', bad], {}), bad).toThrow(/--allowed-host: .* is not a host name/);
    }
  });

  it('refuses bad values with a message naming the flag', () => {
    for (const [args, flag] of [
      [['--port', 'x'], '--port'],
      [['--clock', 'fast'], '--clock'],
      [['--speed', '0'], '--speed'],
      [['--quote-ttl', 'soon'], '--quote-ttl'],
      [['--lifecycle', 'nap=1m'], '--lifecycle'],
      [['--clock-start', 'yesterday'], '--clock-start'],
      [['--max-orders', '0'], '--max-orders'],
      [['--max-orders', '1.5'], '--max-orders'],
      // The clock's range and the delays its ceiling leaves room for (CONTRACT §13).
      [['--clock-start', '9950-01-01T00:00:00Z'], '--clock-start'],
      [['--clock-start', '+275000-01-01T00:00:00Z'], '--clock-start'],
      [['--payin-window', '3651d'], '--payin-window'],
      [['--webhook-retries', '1m,4000d'], '--webhook-retries'],
      [['--lifecycle', 'payout=3651d'], '--lifecycle'],
    ] as const) {
      expect(() => loadConfig([...args], {}), flag).toThrow(ConfigError);
      expect(() => loadConfig([...args], {})).toThrow(new RegExp(flag));
    }
  });
});

describe('checkConfig', () => {
  const check = (over: Partial<SandboxConfig> | Record<string, unknown>) => () =>
    checkConfig({ ...DEFAULT_CONFIG, ...over } as SandboxConfig);

  it('takes every config the flags make, at their extremes (the bench turns the rate limit off with 1e12)', () => {
    const extremes = [
      ['--rate-capacity', '1000000000000', '--rate-refill', '1000000000000'],
      ['--skew-seconds', '400000000'],
      ['--seed', '100000000000000000000'],
      ['--seed=-3'],
      ['--webhook-retries', Array(1001).fill('1s').join(',')],
      ['--port', '0', '--inspect-limit', '1000000', '--max-orders', '100000000'],
      ['--quote-ttl', '3650d', '--payin-window', '1ms', '--lifecycle', 'payout=3650d,processing=1ms', '--webhook-timeout', '3650d'],
      ['--speed', '1000000', '--rates', 'walk', '--rate-volatility', '100', '--clock-start', '1970-01-01T00:00:00Z'],
      ['--admin-token', 't', '--allowed-host', 'sandbox.test,[fd00::1]', '--state', 's.json', '--ready-file', 'r.json'],
    ];
    for (const argv of extremes) {
      const config = loadConfig(argv, {});
      if (config === 'help') throw new Error('help');
      expect(() => checkConfig(config), argv.join(' ').slice(0, 80)).not.toThrow();
    }
  });

  it('takes what worked in process before it checked: Infinity turns a limit off, 0 is a step at once', () => {
    for (const over of [
      { rateLimit: { capacity: Number.POSITIVE_INFINITY, refillPerSecond: Number.POSITIVE_INFINITY } },
      { skewMs: Number.POSITIVE_INFINITY },
      { adminToken: '' },
      { inspectLimit: 0 },
      { lifecycleDelays: { processing: 0, payout: 0 } },
      { quoteTtlMs: 0 },
      { port: '0' },
      { maxOrders: 1_000_000_000 },
    ]) {
      expect(check(over), JSON.stringify(over)).not.toThrow();
    }
  });

  it('refuses NaN, a wrong type or an unknown name, naming it', () => {
    expect(check({ quoteTtlMs: Number.NaN })).toThrow(
      new ConfigError('quoteTtlMs: NaN is not valid (Invalid input: expected number, received NaN)'),
    );
    expect(check({ rateLimit: { capacity: Number.NaN, refillPerSecond: 1 } })).toThrow(
      /^rateLimit\.capacity: NaN is not valid \(must be a number at least 2\)$/,
    );
    expect(check({ port: 'abc' })).toThrow(/^port: "abc" is not valid/);
    expect(check({ seed: 1.5 })).toThrow(/^seed: 1\.5 is not valid/);
    expect(check({ webhookURL: 'x' })).toThrow(/^webhookURL: not an option of the sandbox$/);
  });
});
