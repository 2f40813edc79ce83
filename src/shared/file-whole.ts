import { open, rename, unlink } from 'node:fs/promises';

/**
 * What a write goes through: the calls of `fs.promises.FileHandle` it makes, so a test can hand
 * in a handle whose writes come up short (as `write(2)` does on a nearly full disk).
 */
export interface WholeFileHandle {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  stat(): Promise<{ size: number }>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface WriteWholeOptions {
  /** Opens the temporary file for writing (default: `fs.promises.open(path, 'w')`). */
  open?: (path: string) => Promise<WholeFileHandle>;
  /** Bytes written between two flushes to disk while the document is made (default 32 MiB). */
  flushEveryBytes?: number;
}

/**
 * Writes a document given as chunks (streamed: each is written as it comes) whole or not at all
 * (CONTRACT §13 for the state file; every report and export the CLI writes too): to a temporary
 * file beside the target, flushed to disk, then renamed over it, so a crash or a failure mid-write
 * leaves the previous file whole (and no temporary file behind). Returns the bytes written; a
 * failure is an error `could not write PATH: <why>`, the cause attached.
 *
 * Not write-file-atomic: it makes one `write` call and takes a short one as done, so on a disk
 * with less room than the document it renames a truncated file over the good one (measured on a
 * 1 MiB tmpfs, 2026-11-28: 4,096 of 28,003 bytes, exit 0).
 *
 * `write(2)` may store fewer bytes than asked without failing (a disk filling up stores what fits,
 * and only the next write says ENOSPC): every write is followed until all its bytes are stored, a
 * write that stores nothing is a failure, and the temporary file's size is checked against the
 * bytes written before it may replace the previous file.
 */
export async function writeFileWhole(
  path: string,
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  options: WriteWholeOptions = {},
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
    throw new Error(`could not write ${path}: ${describeFileError(error)}`, { cause: error });
  }
  return bytes;
}

/**
 * Bytes written between two flushes to disk: without them, the kernel writes most of a
 * large document back only at the last flush, after it is all made (200,000 orders: 0.8 s of
 * waiting for the disk at the end; store issue item 7, decision 029).
 */
const FLUSH_EVERY_BYTES = 32 * 1024 * 1024;

/** Writes every byte of `data`, following short writes; a write that stores nothing is an error. */
async function writeAll(file: WholeFileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await file.write(data, offset, data.length - offset);
    if (!(bytesWritten > 0)) throw new Error(`a write stored ${offset} of ${data.length} bytes and then none: the device is probably full`);
    offset += bytesWritten;
  }
}

/** Why a file operation failed, in words, with its code. */
export function describeFileError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied (${e.code})`;
  if (e.code === 'ENOENT') return `no such file or folder (${e.code})`;
  if (e.code === 'ENOSPC') return `no space left on the device (${e.code})`;
  if (e.code === 'EISDIR') return `it is a folder (${e.code})`;
  return e.message ?? String(error);
}
