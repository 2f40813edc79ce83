import type { Context } from 'koa';
import type { Readable } from 'node:stream';

/**
 * Answers with a server-sent-event stream (the dashboard's live feed, the tail, the listener): each write goes
 * out at once, the socket never times out, and no proxy or cache holds the events back.
 */
export function answerEventStream(ctx: Context, stream: Readable): void {
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setTimeout(0);
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.status = 200;
  ctx.body = stream;
}
