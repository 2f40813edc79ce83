import { accessSync, constants, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { KeySet } from '../auth/partner.schemas';

/** CONTRACT §18: what `serve --ready-file FILE` writes once the sandbox listens. */
export interface ReadyInfo {
  /** Base URL; with `--port 0`, the port chosen. */
  url: string;
  pid: number;
  version: string;
  /** The demo partner's client id and keys (what a test harness signs with). */
  client_id: string;
  keys: { test: KeySet; live: KeySet };
}

/** A ready file that cannot be written: the start stops with this one line. */
export class ReadyFileError extends Error {
  override name = 'ReadyFileError';
}

/**
 * Checked before listening: the folder exists and is writable, and a file left by an earlier
 * run is removed, so a harness that waits for the file never reads a stale one.
 */
export function prepareReadyFile(path: string): void {
  const file = resolve(path);
  try {
    accessSync(dirname(file), constants.W_OK);
    rmSync(file, { force: true });
  } catch (error) {
    throw new ReadyFileError(
      `--ready-file ${path}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/**
 * Writes the file atomically: a temporary file in the same folder, renamed over it, so a
 * reader sees nothing or the whole document, never a part.
 */
export function writeReadyFile(path: string, info: ReadyInfo): void {
  const file = resolve(path);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new ReadyFileError(`--ready-file ${path}: ${(error as Error).message}`);
  }
}

/** Removed on a graceful stop: the sandbox it describes is gone. */
export function removeReadyFile(path: string): void {
  rmSync(resolve(path), { force: true });
}
