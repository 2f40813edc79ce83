import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, loadConfig } from './config';

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
