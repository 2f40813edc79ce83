import { describeFileError, writeFileWhole } from './file-whole';

/**
 * Writes a report or export (a JUnit or Markdown report, a Postman collection, the signature
 * vectors) whole or not at all, as the state file is written (`writeFileWhole`): a write that
 * fails part-way (a full disk) leaves the file that was there as it was, never half a document,
 * and says so in one line.
 */
export async function writeReport(path: string, text: string): Promise<void> {
  try {
    await writeFileWhole(path, [text]);
  } catch (error) {
    const cause = (error as Error).cause ?? error;
    throw new Error(`cannot write ${path}: ${describeFileError(cause)}; a file already there is unchanged`, { cause });
  }
}
