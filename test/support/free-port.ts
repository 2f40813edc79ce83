import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/** A URL on 127.0.0.1 where nothing listens: a port that was free a moment ago. */
export async function deadUrl(): Promise<string> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return `http://127.0.0.1:${port}`;
}
