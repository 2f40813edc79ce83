import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MCP_MAX_MESSAGE_BYTES } from './mcp-usage';

/** JSON-RPC 2.0's "Invalid Request". */
const INVALID_REQUEST = -32600;
/** How much of an oversized line's start and end is kept to find its `id`. */
const ID_WINDOW = 256;

/**
 * The MCP stdio transport (one JSON-RPC message a line, as the SDK's `StdioServerTransport`),
 * except that a message over `maxBytes` is answered with a JSON-RPC error (its `id` when one is
 * found at the line's start or end, where JSON encoders put it; else null) and skipped, and the
 * session goes on (CONTRACT §17). A failure of stdin ends the session with `failure` set, so the
 * command exits non-zero, never 0.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the session ended, when it ended on a failure. */
  failure: Error | undefined;

  private chunks: Buffer[] = [];
  private size = 0;
  /** While an oversized line is skipped: its length so far, its first and last bytes. */
  private skipped: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  private closed = false;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxBytes = MCP_MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }

  private readonly onInputError = (error: Error) => {
    this.failure = error;
    this.onerror?.(error);
    void this.close();
  };

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start <= data.length && !this.closed) {
      const newline = data.indexOf(0x0a, start);
      const end = newline < 0 ? data.length : newline;
      const piece = data.subarray(start, end);
      if (this.skipped === undefined && this.size + piece.length > this.maxBytes) {
        const head = Buffer.concat([...this.chunks, piece.subarray(0, ID_WINDOW)]).subarray(0, ID_WINDOW);
        this.skipped = { bytes: this.size, head, tail: Buffer.alloc(0) };
        this.chunks = [];
        this.size = 0;
      }
      if (this.skipped !== undefined) {
        this.skipped.bytes += piece.length;
        this.skipped.tail = Buffer.concat([this.skipped.tail, piece.subarray(-ID_WINDOW)]).subarray(-ID_WINDOW);
      } else if (piece.length > 0) {
        this.chunks.push(piece);
        this.size += piece.length;
      }
      if (newline < 0) return;
      start = newline + 1;
      if (this.skipped !== undefined) {
        const { bytes, head, tail } = this.skipped;
        this.skipped = undefined;
        void this.send(oversized(bytes, this.maxBytes, head, tail));
      } else {
        const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
        this.chunks = [];
        this.size = 0;
        if (line.trim() !== '') this.deliver(line);
      }
    }
  };

  /**
   * Hands on one message. A line that is not JSON is answered -32700 (Parse error), one that is
   * JSON but not a JSON-RPC message -32600 (Invalid Request), as JSON-RPC 2.0 §5.1 asks, with its
   * id when it has one: a client is told instead of waiting for an answer that never comes.
   */
  private deliver(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      this.onerror?.(error as Error);
      void this.send(refusal(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`));
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.onerror?.(message.error);
      const id = (parsed as { id?: unknown } | null)?.id;
      const known = typeof id === 'string' || typeof id === 'number' ? id : null;
      void this.send(refusal(known, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message'));
      return;
    }
    this.onmessage?.(message.data);
  }
}

const PARSE_ERROR = -32700;

/** A JSON-RPC error answer (the id null when it cannot be read, which the SDK's types do not list). */
function refusal(id: string | number | null, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id: id as string | number, error: { code, message } } as JSONRPCMessage;
}

/** The JSON-RPC error answering an oversized message. */
function oversized(bytes: number, max: number, head: Buffer, tail: Buffer): JSONRPCMessage {
  const id = idIn(head.toString('utf8'), tail.toString('utf8'));
  return {
    jsonrpc: '2.0',
    // JSON-RPC 2.0 answers null when the id cannot be read; the SDK's types want one.
    id: id as string | number,
    error: {
      code: INVALID_REQUEST,
      message: `Message of ${bytes} bytes is over the ${max}-byte limit of ramp-sandbox mcp; it was not read (start mcp with a larger --max-message-bytes, or load a large state with ramp-sandbox serve --state FILE)`,
    },
  } as JSONRPCMessage;
}

const ID_VALUE = String.raw`("(?:[^"\\]|\\.){0,64}"|-?\d{1,16})`;
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
const ID_AT_END = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`);

/** The top-level `id` of a message seen only by its first and last bytes, or null. */
function idIn(head: string, tail: string): string | number | null {
  const found = ID_AT_START.exec(head)?.[1] ?? ID_AT_END.exec(tail.replace(/\r$/, ''))?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found) as string | number;
  } catch {
    return null;
  }
}
