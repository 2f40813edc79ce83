import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli';

// What a careless or hostile user gives the command line: one line naming the problem and a
// non-zero exit, never a stack trace, a crash or a run out of memory (each case below did one).
const dir = mkdtempSync(join(tmpdir(), 'careless-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /);

const laughs = [
  'name: laughs',
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  'steps:',
  '  - advance: { duration: 1s }',
].join('\n');

describe('scenario files', () => {
  it.each([
    ['an alias bomb (billion laughs)', () => file('laughs.yaml', laughs), /: YAML: Excessive alias count/],
    [
      'a number YAML reads as Infinity',
      () =>
        file(
          'inf.yaml',
          'name: inf\nsteps:\n  - quote: { from: { currency: NGN, amount: 1e400 }, to: { currency: USDT, network: base-sepolia } }\n',
        ),
      /: step 1: steps\.0\.quote\.from\.amount: is not a finite number/,
    ],
    [
      'a file over 1 MiB',
      () => file('big.yaml', `name: big\nsteps:\n${'  - advance: { duration: 1s }\n'.repeat(40_000)}`),
      /: is \d+ bytes: at most 1048576 are read/,
    ],
    [
      'a name of 300 characters',
      () => file('name.yaml', `name: ${'n'.repeat(300)}\nsteps:\n  - advance: { duration: 1s }\n`),
      /: name: must be at most 200 characters/,
    ],
    ['a device', () => '/dev/zero', /^✗ \/dev\/zero: is not a file/m],
  ])('refuses %s before anything runs (exit 2)', async (_what, make, message) => {
    const res = await runCli(['scenarios', make()]);
    expect(res.code).toBe(2);
    expect(res.stdout + res.stderr).toMatch(message);
    noStack(res.stdout + res.stderr);
  });

  it('refuses a --partner file that is a device instead of reading it for ever', async () => {
    const res = await runCli(['scenarios', '--partner', '/dev/zero', 'cancel']);
    expect(res.code).toBe(2);
    expect(res.stdout + res.stderr).toMatch(/^✗ \/dev\/zero: is not a file/m);
  });
});

describe('flags', () => {
  it.each([
    [['scenarios', 'cancel', '--concurrency', 'abc'], '--concurrency: abc is not valid (a whole number from 1 to 64)\n'],
    [['scenarios', 'cancel', '--concurrency', '0'], '--concurrency: 0 is not valid (a whole number from 1 to 64)\n'],
    [['scenarios', 'cancel', '--seed', 'abc'], '--seed: abc is not valid (a whole number)\n'],
  ])('%j: one line, exit 2', async (args, line) => {
    const res = await runCli(args);
    expect(res).toMatchObject({ code: 2, stderr: line });
  });

  it('serve refuses an unknown log level (flag or LOG_LEVEL) with the usage, exit 2', async () => {
    for (const [args, env] of [
      [['serve', '--port', '0', '--log-level', 'loud'], {}],
      [['serve', '--port', '0'], { LOG_LEVEL: 'loud' }],
    ] as const) {
      const res = await runCli(args, { env });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/^--log-level: loud is not one of fatal, error, warn, info, debug, trace, silent\n/);
      noStack(res.stderr);
    }
  });

  it.each([
    [['sign', '--seed', 'abc', 'GET', '/v1/networks'], /^ramp-sandbox sign: --seed: abc is not valid/],
    [['sign', '--seed', '1e400', 'GET', '/v1/networks'], /^ramp-sandbox sign: --seed: 1e400 is not valid/],
    [['sign', 'GET', 'v1/networks'], /^ramp-sandbox sign: v1\/networks: the path starts with \//],
    [['sign', '--base', 'notaurl', 'GET', '/v1/networks'], /^ramp-sandbox sign: --base: notaurl is not an http\(s\) URL/],
  ])('sign %j: refused, exit 2, no curl printed', async (args, message) => {
    const res = await runCli(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
  });

  it.each([
    [
      'http://admin:hunter2@127.0.0.1:9',
      /^--sandbox http:\/\/admin:\*\*\*@127\.0\.0\.1:9 carries a user name or password: give the admin token with --admin-token\n$/,
    ],
    ['ftp://127.0.0.1:9', /^--sandbox ftp:\/\/127\.0\.0\.1:9 is not an http or https URL/],
    ['http://127.0.0.1:9/?x=1', /^--sandbox http:\/\/127\.0\.0\.1:9\/\?x=1 has a query or fragment/],
    ['http://127.0.0.1:9/?', /^--sandbox http:\/\/127\.0\.0\.1:9\/\? has a query or fragment/],
  ])(
    "--sandbox %s: refused before anything is called, exit 2 (fetch's own message, or an unreachable sandbox, before)",
    async (url, line) => {
      for (const args of [
        ['simulate', 'ORD1', 'completed', '--sandbox', url],
        ['mcp', '--sandbox', url],
        ['scenarios', 'cancel', '--sandbox', url],
      ]) {
        const res = await runCli(args);
        expect(res.code, args.join(' ')).toBe(2);
        expect(res.stderr.replace(/^ramp-sandbox \w+: /, ''), args.join(' ')).toMatch(line);
        expect(res.stderr).not.toContain('hunter2');
      }
    },
  );
});
