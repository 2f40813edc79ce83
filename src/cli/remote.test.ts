import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createControlClient } from '../client/control-client';
import { SandboxError } from '../client/sandbox-error';
import { describeFailure } from './remote';

describe('describeFailure (CONTRACT §17: one line when the sandbox cannot be reached)', () => {
  it('names the URL and the connection error when nothing listens', async () => {
    // A port that was just free: nothing listens on it now.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((done) => server.close(done));
    const url = `http://127.0.0.1:${port}`;
    const error = await createControlClient({ baseUrl: url })
      .getClock()
      .catch((e: unknown) => e);
    const line = describeFailure(error, url);
    expect(line).toBe(`cannot reach the sandbox at ${url} (ECONNREFUSED); start it with ramp-sandbox serve, or pass --sandbox URL`);
    expect(line).not.toContain('\n');
  });

  it("gives the control API's refusal with a hint for a missing token", () => {
    const line = describeFailure(new SandboxError(401, 'E_UNAUTHORIZED', 'admin token required', 'GET /sandbox/clock'), 'x');
    expect(line).toBe(
      'GET /sandbox/clock answered 401 E_UNAUTHORIZED: admin token required (pass --admin-token or set SANDBOX_ADMIN_TOKEN)',
    );
  });
});
