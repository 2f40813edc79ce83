import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { StateDocumentSchema, type StateDocument } from './state.schema';
import { firstIssue } from '../shared/validation';

/** A state file that cannot be read as a state document. */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

/** Reads and validates `--state FILE`; undefined when the file does not exist yet. */
export function readStateFile(path: string): StateDocument | undefined {
  if (!existsSync(path)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new StateFileError(`${path}: ${(error as Error).message}`);
  }
  const parsed = StateDocumentSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new StateFileError(`${path}: ${issue.path || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Writes the state atomically (CONTRACT §13): to a temporary file beside the target, then a
 * rename, so a crash mid-write leaves the previous file whole. Returns the bytes written.
 */
export function writeStateFile(path: string, doc: StateDocument): number {
  const text = JSON.stringify(doc);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
  return Buffer.byteLength(text);
}
