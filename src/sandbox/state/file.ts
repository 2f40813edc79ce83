import { constants, createReadStream } from 'node:fs';
import { access, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Assembler from 'stream-json/assembler.js';
import parser from 'stream-json/parser.js';
import { StateDocumentSchema, type StateDocument } from './state.schema';
import { firstIssue } from '../../shared/validation';
import { STATE_DEPTH, tooDeepField } from '../../shared/json-depth';

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
 * Any failure is a StateFileError of one line naming the file and the reason.
 */
export async function readStateFile(path: string, options: { streamAboveBytes?: number } = {}): Promise<StateDocument | undefined> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`${path}: ${reason(error)}`);
  }
  let raw: unknown;
  try {
    raw = size > (options.streamAboveBytes ?? STREAM_ABOVE_BYTES) ? await parseStream(path) : JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, ''));
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
    throw new StateFileError(`${path}: cannot be written: its folder ${dirname(path)} ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'is not writable'}`);
  }
  try {
    await access(path, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new StateFileError(`${path}: cannot be written: ${reason(error)}`);
  }
}

/**
 * Writes a document given as chunks atomically (CONTRACT §13): to a temporary file beside the
 * target, flushed to disk, then renamed over it, so a crash or a failure mid-write leaves the
 * previous file whole (and no temporary file behind). Returns the bytes written; a failure is a
 * StateSaveError naming the cause.
 */
export async function writeStateFile(path: string, chunks: readonly string[]): Promise<number> {
  const temp = `${path}.${process.pid}.tmp`;
  let bytes = 0;
  try {
    const file = await open(temp, 'w');
    try {
      for (const chunk of chunks) {
        const data = Buffer.from(chunk, 'utf8');
        await file.write(data);
        bytes += data.length;
      }
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw new StateSaveError(`could not write ${path}: ${reason(error)}`, { cause: error });
  }
  return bytes;
}

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied (${e.code})`;
  if (e.code === 'ENOENT') return `no such file or folder (${e.code})`;
  if (e.code === 'ENOSPC') return `no space left on the device (${e.code})`;
  if (e.code === 'EISDIR') return `it is a folder (${e.code})`;
  return e.message ?? String(error);
}
