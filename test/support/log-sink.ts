import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A pino logger at `info` whose lines land in `lines`, for tests that read the log. */
export function capturedLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}
