/**
 * Bench servers, one per process: `sandbox` (the real app, manual clock, rate limit lifted) or
 * `bare` (plain Koa answering the same JSON bodies from memory). Prints `PORT <n>` when ready.
 */
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import { startServer } from '../src/main';

const kind = process.argv[2];
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));

if (kind === 'sandbox') {
  const running = await startServer({
    port: 0,
    clockMode: 'manual',
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    rateLimit: { capacity: 1e12, refillPerSecond: 1e12 },
  });
  process.stdout.write(`PORT ${new URL(running.url).port}\n`);
} else if (kind === 'bare') {
  // The same JSON the sandbox answers, captured by the bench and passed in through stdin.
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const bodies = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  const app = new Koa();
  const router = new Router();
  router.get('/v1/networks', (ctx) => {
    ctx.body = bodies.networks;
  });
  router.get('/v1/orders/:reference', (ctx) => {
    ctx.body = bodies.order;
  });
  router.post('/v1/orders', (ctx) => {
    ctx.body = bodies.created;
  });
  app.use(bodyParser());
  app.use(router.routes());
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
} else {
  process.stderr.write('usage: servers.ts sandbox|bare\n');
  process.exit(2);
}
