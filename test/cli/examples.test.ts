import { execFile } from 'node:child_process';
import { spawnTs } from '../support/spawn';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const TSX = `${root}node_modules/.bin/tsx`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const env = () => ({
  ...process.env,
  BASE_URL: s.url,
  CLIENT_ID: s.demo.clientId,
  SECRET_KEY: s.demo.keys.test.secret_key,
  ENCRYPTION_KEY: s.demo.keys.test.encryption_key,
});

describe('README and docs examples run as written', () => {
  it('docs/in-process.md: its example is examples/in-process.test.ts, which npm test runs', () => {
    const example = readFileSync(`${root}examples/in-process.test.ts`, 'utf8').replace(/^\/\/.*\n/, '');
    expect(readFileSync(`${root}docs/in-process.md`, 'utf8')).toContain(`\`\`\`ts\n${example}\`\`\``);
  });

  it('README and docs/*.md link only to files that exist', () => {
    // docs/architecture.md and docs/decisions/ are written alongside these pages: linked before they land.
    const pending = (target: string) => /^docs\/(architecture\.md|decisions\b)/.test(target);
    const pages = [
      'README.md',
      ...readdirSync(`${root}docs`)
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const missing: string[] = [];
    for (const page of pages) {
      const text = readFileSync(`${root}${page}`, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const file = posix.normalize(posix.join(posix.dirname(page), target!.replace(/#.*$/, '')));
        if (!pending(file) && !existsSync(`${root}${file}`)) missing.push(`${page}: ${target}`);
      }
    }
    expect(readFileSync(`${root}README.md`, 'utf8')).toContain('](docs/in-process.md)');
    expect(missing).toEqual([]);
  });

  it('examples/sign.sh: a signed request with curl and openssl', async () => {
    const body = '{"from":{"currency":"NGN","amount":50000},"to":{"currency":"USDT","network":"base-sepolia"}}';
    const { stdout } = await run('bash', [`${root}examples/sign.sh`, 'POST', '/v1/orders/quote', body], { env: env() });
    expect(JSON.parse(stdout)).toMatchObject({ status: true, data: { type: 'onramp' } });
    const get = await run('bash', [`${root}examples/sign.sh`, 'GET', '/v1/institutions?fiat=KES'], { env: env() });
    expect(JSON.parse(get.stdout).data.length).toBeGreaterThanOrEqual(8);
  });

  it('examples/sign-and-call.ts: quote, order and read back with signRequest', async () => {
    const { stdout } = await run(TSX, [`${root}examples/sign-and-call.ts`], { env: env() });
    expect(stdout).toMatch(/order ORD\w+: awaiting_user_payment; pay 50000 NGN/);
    expect(stdout).toMatch(/read back: awaiting_user_payment/);
  });

  it('examples/webhook-receiver.ts: verifies real deliveries and refuses a forged one', async () => {
    const child = spawnTs(`${root}examples/webhook-receiver.ts`, [], {
      env: { ...env(), PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout!.on('data', (c) => {
          out += String(c);
          const m = /listening on (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: `http://127.0.0.1:${port}/webhooks` });
      const { createOrder } = await import('../support/orders');
      const o = await createOrder(s, 'onramp');
      await s.sandbox.dispatcher.idle();
      const [d] = (await s.control('GET', `/sandbox/webhooks/deliveries?order=${o.reference}`)).body.data;
      expect(d).toMatchObject({ status: 'succeeded', event: 'order.created' });
      const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: { 'svc-signature': `sha256=${'0'.repeat(64)}`, 'svc-timestamp': String(Date.now()) },
        body: d.raw_body,
      });
      expect(forged.status).toBe(401);
      await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`order.created ${o.reference} -> awaiting_user_payment`);
    } finally {
      child.kill();
      await s.control('PATCH', `/sandbox/partners/${s.demo.clientId}`, { webhook_url: null });
    }
  });
});
