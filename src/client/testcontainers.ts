import { AbstractStartedContainer, GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';
import { createControlClient, type ControlClient } from './control-client';
import type { PartnerCredentials } from './handle.types';

/**
 * `ramp-sandbox/testcontainers` (CONTRACT §20): the sandbox's image under Testcontainers for
 * Node, for tests that want it in a container rather than in process (`startSandbox`). Started,
 * it answers what `startSandbox` answers of itself that a container can: the URL, the demo
 * partner's credentials, and the same typed control client (§18) to drive it.
 * `testcontainers` is an optional peer dependency: install it beside ramp-sandbox.
 * @example
 * const sandbox = await new RampSandboxContainer().withSeed(7).withClock('manual').start();
 * await sandbox.control.simulatePayin({ params: { reference }, body: {} });
 * await sandbox.stop();
 */

/** The port the image listens on (its `PORT`). */
export const RAMP_SANDBOX_PORT = 4010;

/**
 * The image when none is given: `RAMP_SANDBOX_IMAGE`, else `ramp-sandbox:latest`, what
 * `docker build -t ramp-sandbox .` makes in a clone (docs/container.md names the published one).
 */
export const DEFAULT_IMAGE = 'ramp-sandbox:latest';

/** The demo partner's client id starts so (sandbox.ts), whatever the seed. */
const DEMO_PREFIX = 'ptr_demo_';

/** A ramp-sandbox container to configure, then `start()`. */
export class RampSandboxContainer extends GenericContainer {
  private adminToken: string | undefined;
  private webhookUrl: string | undefined;

  constructor(image: string = process.env.RAMP_SANDBOX_IMAGE || DEFAULT_IMAGE) {
    super(image);
    this.withExposedPorts(RAMP_SANDBOX_PORT).withWaitStrategy(Wait.forHttp('/health', RAMP_SANDBOX_PORT)).withStartupTimeout(60_000);
  }

  /** Same seed, same demo keys, references and faker data (`--seed`; default 1). */
  withSeed(seed: number): this {
    return this.withEnvironment({ SANDBOX_SEED: String(seed) });
  }

  /** `manual`: the virtual clock moves only when the control API advances it; `realtime` (the image's default). */
  withClock(mode: 'manual' | 'realtime', options: { speed?: number; start?: Date | string } = {}): this {
    this.withEnvironment({ SANDBOX_CLOCK: mode });
    if (options.speed !== undefined) this.withEnvironment({ SANDBOX_SPEED: String(options.speed) });
    if (options.start !== undefined) this.withEnvironment({ SANDBOX_CLOCK_START: new Date(options.start).toISOString() });
    return this;
  }

  /** Require `Authorization: Bearer TOKEN` on /sandbox (`--admin-token`); the control client sends it. */
  withAdminToken(token: string): this {
    this.adminToken = token;
    return this.withEnvironment({ SANDBOX_ADMIN_TOKEN: token });
  }

  /** Host names other containers use to reach it (its network alias), for the control API's Host check (`--allowed-host`). */
  withAllowedHosts(...hosts: string[]): this {
    return this.withEnvironment({ SANDBOX_ALLOWED_HOSTS: hosts.join(',') });
  }

  /** The demo partner's webhook URL, as the container reaches it (e.g. `http://host.docker.internal:8080/hooks`). */
  withWebhookUrl(url: string): this {
    this.webhookUrl = url;
    return this;
  }

  override async start(): Promise<StartedRampSandboxContainer> {
    // The control API is open to whoever reaches the port (without an admin token): published on
    // the loopback only when the engine runs on this machine, as `docker run -p 127.0.0.1:…` would.
    const { host } = (await getContainerRuntimeClient()).info.containerRuntime;
    const local = ['localhost', '127.0.0.1', '::1'].includes(host);
    if (local)
      this.hostConfig.PortBindings = {
        ...this.hostConfig.PortBindings,
        [`${RAMP_SANDBOX_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: '0' }],
      };
    const started = await super.start();
    try {
      const url = `http://${local ? '127.0.0.1' : started.getHost()}:${started.getMappedPort(RAMP_SANDBOX_PORT)}`;
      const control = createControlClient({ baseUrl: url, ...(this.adminToken ? { adminToken: this.adminToken } : {}) });
      // The demo partner and its keys from the control API (what the banner and the ready file
      // show), so nothing is run inside the container.
      const demo = (await control.listPartners()).find((p) => p.client_id.startsWith(DEMO_PREFIX));
      if (!demo) throw new Error(`ramp-sandbox container at ${url}: no demo partner (${DEMO_PREFIX}…)`);
      const { keys } = await control.getPartnerKeys({ params: { client_id: demo.client_id } });
      if (this.webhookUrl) await control.updatePartner({ params: { client_id: demo.client_id }, body: { webhook_url: this.webhookUrl } });
      const partner: PartnerCredentials = { clientId: demo.client_id, test: { ...keys.test }, live: { ...keys.live } };
      return new StartedRampSandboxContainer(started, url, partner, control);
    } catch (error) {
      await started.stop();
      throw error;
    }
  }
}

/** A running ramp-sandbox container: `url`, `partner`, `control`, and `stop()` (Testcontainers'). */
export class StartedRampSandboxContainer extends AbstractStartedContainer {
  constructor(
    started: StartedTestContainer,
    /** The sandbox's base URL from this machine, e.g. `http://127.0.0.1:32768`. */
    readonly url: string,
    /** The demo partner: client id, test and live key sets (what `startSandbox` gives as `partner`). */
    readonly partner: PartnerCredentials,
    /** The typed control client (CONTRACT §18), the one `startSandbox` drives its handle with. */
    readonly control: ControlClient,
  ) {
    super(started);
  }
}
