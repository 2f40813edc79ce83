import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deadUrl } from '../support/free-port';
import { ROOT, type EngineContext } from './engine';

/**
 * CONTRACT §20: examples/compose/ as its README commands run it (`docker compose up` or
 * `podman-compose up`), on the image built from the working tree: the partner service reaches
 * the sandbox by its service name (SANDBOX_ALLOWED_HOSTS), creates and pays an order, and
 * verifies the webhooks the sandbox delivers to it by its own service name.
 */
const run = promisify(execFile);
const provided = inject('container');
const ctx = 'skip' in provided ? undefined : provided;
const noCompose = ctx !== undefined && ctx.compose.length === 0;
if (noCompose && process.env.CI === 'true')
  throw new Error('test:container under CI=true: no `docker compose` and no podman-compose for the compose example');

describe.skipIf(!ctx || noCompose)('examples/compose (CONTRACT §20)', () => {
  const c = ctx as EngineContext;
  const project = `ramp-test-compose-${process.pid}`;
  let env: NodeJS.ProcessEnv;

  async function compose(...args: string[]): Promise<string> {
    const [command, ...pre] = c.compose as [string, ...string[]];
    const { stdout } = await run(command, [...pre, '-p', project, '-f', `${ROOT}examples/compose/compose.yaml`, ...args], {
      env,
      cwd: `${ROOT}examples/compose`,
      maxBuffer: 1 << 24,
      timeout: 300_000,
    });
    return stdout;
  }

  afterAll(async () => {
    if (!env) return;
    await compose('down', '-v', '-t', '2').catch(() => {});
    // podman-compose 1.0 leaves the project's network behind.
    if (c.engine === 'podman') await run('podman', ['network', 'rm', '-f', `${project}_default`], { env }).catch(() => {});
  });

  it('the partner service gets its order’s webhooks from the sandbox by service name, verified', async () => {
    const [sandboxPort, partnerPort] = [new URL(await deadUrl()).port, new URL(await deadUrl()).port];
    env = { ...process.env, ...c.env, RAMP_SANDBOX_IMAGE: c.image, SANDBOX_PORT: sandboxPort, PARTNER_PORT: partnerPort };
    await compose('up', '-d');
    let received: Array<{ event: string; status: string }> = [];
    const deadline = Date.now() + 60_000;
    while (!received.some((d) => d.event === 'order.settled')) {
      if (Date.now() > deadline) throw new Error(`no order.settled at the partner within 60 s: ${JSON.stringify(received)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      received = await fetch(`http://127.0.0.1:${partnerPort}/received`).then(
        (r) => r.json() as Promise<typeof received>,
        () => [],
      );
    }
    expect(received.map((d) => d.event)).toEqual([
      'order.created',
      'order.fiat_recieved',
      'order.assigned',
      'order.asset_released',
      'order.settled',
    ]);
    // The sandbox's port on this machine answers too (the loopback only).
    expect((await fetch(`http://127.0.0.1:${sandboxPort}/health`)).status).toBe(200);
  });
});
