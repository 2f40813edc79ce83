import { constants, createReadStream } from 'node:fs';
import { access, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Assembler from 'stream-json/assembler.js';
import parser from 'stream-json/parser.js';
import { StateDocumentSchema, type StateDocument } from './state.schema';
import { firstIssue } from '../../shared/validation';
import { STATE_DEPTH, tooDeepField } from '../../shared/json-depth';
import { NOT_LINED, readLinedState, StateIssue } from './lined';

/** A state file that cannot be read as a state document, or a path that cannot take one. */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

/** A state that could not be written (disk full, permissions, a missing folder). */
export class StateSaveError extends Error {
  override name = 'StateSaveError';
}

/**
 * Above this a file is parsed as a stream: V8 caps one string at ~512 MiB, which a sandbox of
 * ~190,000 completed orders passes (CONTRACT §13). Below it, JSON.parse is several times faster.
 */
const STREAM_ABOVE_BYTES = 256 * 1024 * 1024;

/**
 * Reads and validates `--state FILE` (CONTRACT §13); undefined when the file does not exist yet.
 * Any failure is a StateFileError of one line naming the file and the reason. A document saved
 * one item a line (decision 029: every save since) is read and validated line by line; any
 * other (an older save, a document a person re-formatted) is read whole, as before (`lined:
 * false` reads a lined one so too, for tests).
 */
export async function readStateFile(
  path: string,
  options: {
    streamAboveBytes?: number;
    lined?: boolean;
    /** Called once the file is found, before it is read: its size (bytes; 0 for a pipe). */
    onReading?: (bytes: number) => void;
  } = {},
): Promise<StateDocument | undefined> {
  let size: number;
  let empty: boolean;
  try {
    const stats = await stat(path);
    size = stats.size;
    empty = stats.isFile() && size === 0; // (a pipe or a device has no size to tell)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`${path}: ${reason(error)}`);
  }
  // (`touch state.json` or a copy that failed: refused as any file that is not a state, but said plainly)
  if (empty) throw new StateFileError(`${path}: the file is empty, not a state document (remove it to start an empty sandbox)`);
  options.onReading?.(size);
  if (options.lined !== false) {
    let lined: StateDocument | typeof NOT_LINED;
    try {
      lined = await readLinedState(path);
    } catch (error) {
      throw new StateFileError(`${path}: ${error instanceof StateIssue ? error.message : reason(error)}`);
    }
    if (lined !== NOT_LINED) return lined;
  }
  let raw: unknown;
  try {
    raw =
      size > (options.streamAboveBytes ?? STREAM_ABOVE_BYTES)
        ? await parseStream(path)
        : JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new StateFileError(`${path}: not a JSON document: ${reason(error)}`);
  }
  const deep = tooDeepField(raw, STATE_DEPTH);
  if (deep !== undefined) throw new StateFileError(`${path}: ${deep}: nested deeper than ${STATE_DEPTH} levels`);
  const parsed = StateDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new StateFileError(`${path}: ${issue.path || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** JSON.parse for a file too large to be one string: tokens assembled into the same value. */
async function parseStream(path: string): Promise<unknown> {
  // Packed values only: the assembler reads nothing else, and the streamed pieces of every
  // string and number doubled the work (20,000 orders: 7.4 s → 3.2 s here).
  const tokens = parser.asStream({ streamValues: false });
  const assembler = Assembler.connectTo(tokens);
  await pipeline(createReadStream(path), tokens);
  if (!assembler.done) throw new Error('the document ends before it is complete');
  return assembler.current;
}

/**
 * With `--state`, a path that cannot be written is refused at start (CONTRACT §13), not found
 * out at the first save: its folder must exist and be writable, and so must the file if it exists.
 */
export async function checkStatePath(path: string): Promise<void> {
  try {
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw new StateFileError(
      `${path}: cannot be written: its folder ${dirname(path)} ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'is not writable'}`,
    );
  }
  try {
    await access(path, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new StateFileError(`${path}: cannot be written: ${reason(error)}`);
  }
}

/**
 * What a save writes through: the calls of `fs.promises.FileHandle` it makes, so a test can hand
 * in a handle whose writes come up short (as `write(2)` does on a nearly full disk).
 */
export interface StateFileHandle {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  stat(): Promise<{ size: number }>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface WriteStateOptions {
  /** Opens the temporary file for writing (default: `fs.promises.open(path, 'w')`). */
  open?: (path: string) => Promise<StateFileHandle>;
  /** Bytes written between two flushes to disk while the document is made (default 32 MiB). */
  flushEveryBytes?: number;
}

/**
 * Writes a document given as chunks (streamed: each is written as it comes) atomically (CONTRACT
 * §13): to a temporary file beside the target, flushed to disk, then renamed over it, so a crash or
 * a failure mid-write leaves the previous file whole (and no temporary file behind). Returns the
 * bytes written; a failure is a StateSaveError naming the cause.
 *
 * `write(2)` may store fewer bytes than asked without failing (a disk filling up stores what fits,
 * and only the next write says ENOSPC): every write is followed until all its bytes are stored, a
 * write that stores nothing is a failure, and the temporary file's size is checked against the
 * bytes written before it may replace the previous file.
 */
export async function writeStateFile(
  path: string,
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  options: WriteStateOptions = {},
): Promise<number> {
  const temp = `${path}.${process.pid}.tmp`;
  const openFile = options.open ?? ((file: string) => open(file, 'w'));
  let bytes = 0;
  try {
    const file = await openFile(temp);
    // One write in flight while the next chunk is made (decision 029): the disk and the
    // document's making overlap instead of taking turns.
    let writing: Promise<void> | undefined;
    // And the disk writes what it has been given while the rest is made: a flush every
    // `flushEveryBytes`, one at a time, so the last one waits for a tail, not the whole file.
    let flushing: Promise<void> | undefined;
    let flushFailure: { error: unknown } | undefined;
    let unflushed = 0;
    const flushEvery = options.flushEveryBytes ?? FLUSH_EVERY_BYTES;
    try {
      for await (const chunk of chunks) {
        const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        if (writing) await writing;
        if (unflushed >= flushEvery && !flushing) {
          unflushed = 0;
          // (a failed flush is the save's failure: Linux reports a write-back error to one fsync only)
          flushing = file.sync().then(
            () => void (flushing = undefined),
            (error: unknown) => void (flushFailure = { error }),
          );
        }
        if (flushFailure) throw flushFailure.error;
        writing = writeAll(file, data);
        writing.catch(() => {}); // awaited below; a failure meanwhile is not an unhandled rejection
        bytes += data.length;
        unflushed += data.length;
      }
      if (writing) await writing;
      await flushing;
      if (flushFailure) throw flushFailure.error;
      await file.sync();
      const { size } = await file.stat();
      if (size !== bytes) throw new Error(`the file holds ${size} bytes of the ${bytes} written`);
    } finally {
      await writing?.catch(() => {}); // never close under a write or a flush in flight
      await flushing;
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw new StateSaveError(`could not write ${path}: ${reason(error)}`, { cause: error });
  }
  return bytes;
}

/**
 * Bytes written between two flushes of a save to disk: without them, the kernel writes most of a
 * large document back only at the last flush, after it is all made (200,000 orders: 0.8 s of
 * waiting for the disk at the end; store issue item 7, decision 029).
 */
const FLUSH_EVERY_BYTES = 32 * 1024 * 1024;

/** Writes every byte of `data`, following short writes; a write that stores nothing is an error. */
async function writeAll(file: StateFileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await file.write(data, offset, data.length - offset);
    if (!(bytesWritten > 0)) throw new Error(`a write stored ${offset} of ${data.length} bytes and then none: the device is probably full`);
    offset += bytesWritten;
  }
}

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied (${e.code})`;
  if (e.code === 'ENOENT') return `no such file or folder (${e.code})`;
  if (e.code === 'ENOSPC') return `no space left on the device (${e.code})`;
  if (e.code === 'EISDIR') return `it is a folder (${e.code})`;
  return e.message ?? String(error);
}
