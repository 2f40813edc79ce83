import { afterAll, describe, expect, inject, it } from 'vitest';
import { RampSandboxContainer, type StartedRampSandboxContainer } from 'ramp-sandbox/testcontainers';
import { signedHeaders } from '../support/sign';
import type { EngineContext } from './engine';

/**
 * CONTRACT §20: `ramp-sandbox/testcontainers` on the image built from the working tree, through
 * Testcontainers for Node and the engine's Docker API (podman's socket under podman). Ryuk, the
 * reaper container, is off: its image cannot be pulled where no registry answers, and each test
 * stops what it starts.
 */
const provided = inject('container');
const ctx = 'skip' in provided ? undefined : provided;

describe.skipIf(!ctx)('ramp-sandbox/testcontainers (CONTRACT §20)', () => {
  const c = ctx as EngineContext;
  const started: StartedRampSandboxContainer[] = [];
  if (c?.dockerHost) process.env.DOCKER_HOST = c.dockerHost;
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  // Testcontainers takes this machine (a gVisor sandbox) for a container and would use the bridge
  // gateway: the engine runs here, so its ports are on the loopback (the module binds them there).
  process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1';

  afterAll(async () => {
    for (const s of started.splice(0)) await s.stop().catch(() => {});
  });

  it('starts the image with a seed and a manual clock: url, partner keys, the typed control client, stop()', async () => {
    const sandbox = await new RampSandboxContainer(c.image).withSeed(7).withClock('manual').start();
    started.push(sandbox);
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.partner.clientId).toMatch(/^ptr_demo_/);
    expect(sandbox.partner.test.secret_key).toMatch(/^sk_test_/);
    expect(sandbox.partner.live.encryption_key).toMatch(/^enc_live_/);

    expect(await sandbox.control.getClock()).toMatchObject({ mode: 'manual' });
    const path = '/v1/networks';
    const res = await fetch(`${sandbox.url}${path}`, {
      headers: signedHeaders({ clientId: sandbox.partner.clientId, keys: sandbox.partner.test, method: 'GET', path }),
    });
    expect(res.status).toBe(200);

    const order = await sandbox.control.sandboxCreateOrder({
      body: {
        client_id: sandbox.partner.clientId,
        from: { currency: 'NGN', amount: 50_000 },
        to: { currency: 'USDT', network: 'base-sepolia' },
      },
    });
    await sandbox.control.simulatePayin({ params: { reference: order.reference }, body: {} });
    await sandbox.control.advanceClock({ body: { duration: '1h' } });
    expect(await sandbox.control.sandboxGetOrder({ params: { reference: order.reference } })).toMatchObject({ status: 'completed' });

    await sandbox.stop();
    started.splice(started.indexOf(sandbox), 1);
    await expect(fetch(`${sandbox.url}/health`)).rejects.toThrow();
  });

  it('the same seed gives the same demo keys; an admin token is sent by the control client; a webhook URL is set on the demo partner', async () => {
    const a = await new RampSandboxContainer(c.image).withSeed(7).withAdminToken('t0ken-for-tests').start();
    started.push(a);
    expect((await fetch(`${a.url}/sandbox/clock`)).status).toBe(401);
    expect(await a.control.getClock()).toMatchObject({ mode: 'realtime' });
    const b = await new RampSandboxContainer(c.image).withSeed(7).withWebhookUrl('http://partner.invalid:8080/hooks').start();
    started.push(b);
    expect(b.partner).toEqual(a.partner);
    expect(await b.control.getPartner({ params: { client_id: b.partner.clientId } })).toMatchObject({
      webhook_url: 'http://partner.invalid:8080/hooks',
    });
  });
});
