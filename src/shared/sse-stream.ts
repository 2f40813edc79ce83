import { PassThrough } from 'node:stream';

/** Bytes an event stream may leave unread before its connection is cut (the default). */
const UNREAD_LIMIT = 256 * 1024;

/** What the one log line of a cut says. */
export interface CutInfo {
  /** Which stream: `dashboard`, `tail`, `listen`. */
  stream: string;
  /** Bytes the reader had left unread (written, or missed, and not taken by the connection). */
  unread: number;
  limit: number;
  /** The reader's address and port, when the stream was answering one. */
  peer?: string;
}

/** The connection a stream answers: what a cut needs of it (a socket). */
export interface StreamConnection {
  destroy(): void;
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
}

export interface SseStreamOptions {
  stream: string;
  /** Bytes unread past which the connection is cut (default UNREAD_LIMIT). */
  limit?: number;
  /** Told once, when the stream is cut (the sandbox logs it). */
  onCut?: (info: CutInfo) => void;
  writableHighWaterMark?: number;
}

/**
 * A server-sent-event stream whose reader must keep up (issue: 500 streams that never read held
 * ~140 MB and slowed every create). `send` writes while less than `limit` bytes wait unread;
 * past it, the connection is cut: the socket destroyed, the stream destroyed (its feed forgets
 * it), and one line told to `onCut`. A reader that keeps reading is never cut, however long it
 * stays; one that reconnects starts afresh. Every event stream of the sandbox is one: the
 * dashboard's live feed, `ramp-sandbox tail`, and `listen`.
 */
export class SseStream extends PassThrough {
  private connection: StreamConnection | undefined;
  private isCut = false;
  private readonly limit: number;

  constructor(private readonly options: SseStreamOptions) {
    super(options.writableHighWaterMark === undefined ? {} : { writableHighWaterMark: options.writableHighWaterMark });
    this.limit = options.limit ?? UNREAD_LIMIT;
    // A write racing the close is dropped; the close is what counts.
    this.on('error', () => {});
  }

  /** The connection this stream answers: a cut destroys it. */
  attach(connection: StreamConnection): void {
    this.connection = connection;
  }

  /** Bytes written and not yet taken by the connection. */
  get unread(): number {
    return this.writableLength + this.readableLength;
  }

  /** Whether the stream still takes writes (not ended, destroyed or cut). */
  get open(): boolean {
    return !this.writableEnded && !this.destroyed;
  }

  /**
   * Writes `text`, unless the reader has fallen behind: when `text` would leave more than the
   * limit unread (counting `missed` bytes the caller chose not to write), the connection is cut
   * instead. Whether it was written.
   */
  send(text: string, missed = 0): boolean {
    if (!this.open) return false;
    if (this.unread + missed + text.length > this.limit) {
      this.cut(this.unread + missed + text.length);
      return false;
    }
    this.write(text);
    return true;
  }

  /** Cuts the connection (once): one line to `onCut`, then the socket and the stream are destroyed. */
  cut(unread = this.unread): void {
    if (this.isCut) return;
    this.isCut = true;
    const info: CutInfo = { stream: this.options.stream, unread, limit: this.limit };
    const c = this.connection;
    if (c?.remoteAddress !== undefined) info.peer = `${c.remoteAddress}:${c.remotePort ?? ''}`;
    this.options.onCut?.(info);
    c?.destroy();
    this.destroy();
  }
}
