import { constants, createReadStream } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Assembler from 'stream-json/assembler.js';
import parser from 'stream-json/parser.js';
import { StateDocumentSchema, type StateDocument } from './state.schema';
import { firstIssue } from '../../shared/validation';
import { STATE_DEPTH, tooDeepField } from '../../shared/json-depth';
import { NOT_LINED, readLinedState, StateIssue } from './lined';
import { describeFileError, writeFileWhole, type WholeFileHandle, type WriteWholeOptions } from '../../shared/file-whole';

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
    throw new StateFileError(`${path}: ${describeFileError(error)}`);
  }
  // (`touch state.json` or a copy that failed: refused as any file that is not a state, but said plainly)
  if (empty) throw new StateFileError(`${path}: the file is empty, not a state document (remove it to start an empty sandbox)`);
  options.onReading?.(size);
  if (options.lined !== false) {
    let lined: StateDocument | typeof NOT_LINED;
    try {
      lined = await readLinedState(path);
    } catch (error) {
      throw new StateFileError(`${path}: ${error instanceof StateIssue ? error.message : describeFileError(error)}`);
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
    throw new StateFileError(`${path}: not a JSON document: ${describeFileError(error)}`);
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
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new StateFileError(`${path}: cannot be written: ${describeFileError(error)}`);
  }
}

/** What a save writes through (`writeFileWhole`'s handle): a test hands in one whose writes come up short. */
export type StateFileHandle = WholeFileHandle;
export type WriteStateOptions = WriteWholeOptions;

/** Writes the state document whole or not at all (`writeFileWhole`); a failure is a StateSaveError naming the cause. */
export async function writeStateFile(
  path: string,
  chunks: Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>,
  options: WriteStateOptions = {},
): Promise<number> {
  try {
    return await writeFileWhole(path, chunks, options);
  } catch (error) {
    throw new StateSaveError((error as Error).message, { cause: (error as Error).cause ?? error });
  }
}
