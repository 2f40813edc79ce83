import type { Context } from 'koa';
import type { SseStream } from '../../shared/sse-stream';

/**
 * Answers with a server-sent-event stream (the dashboard's live feed, the tail, the listener): each write goes
 * out at once, the socket never times out, and no proxy or cache holds the events back. The
 * stream is attached to the socket, so a reader that falls too far behind is cut off
 * (`SseStream`): a stream that never reads never holds memory without end.
 */
export function answerEventStream(ctx: Context, stream: SseStream): void {
  const socket = ctx.req.socket;
  socket.setNoDelay(true);
  socket.setTimeout(0);
  stream.attach(socket);
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.status = 200;
  ctx.body = stream;
}
