import { existsSync, linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareReadyFile, ReadyFileError, removeReadyFile, writeReadyFile, type ReadyInfo } from './ready-file';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ready-'));
  dirs.push(dir);
  return dir;
};

const keys = { public_key: 'pk_test_a', secret_key: 'sk_test_a', encryption_key: 'enc_test_a' };
const info: ReadyInfo = {
  url: 'http://127.0.0.1:40123',
  pid: 42,
  version: '0.1.0',
  client_id: 'ptr_demo_x',
  keys: { test: keys, live: { ...keys } },
};

describe('the ready file (CONTRACT §18)', () => {
  it('is the whole document, readable by its owner only, with no temporary file left', () => {
    const dir = tempDir();
    const file = join(dir, 'ready.json');
    writeReadyFile(file, info);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(info);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['ready.json']);
  });

  it('replaces the file by a rename, never by writing into it: a reader holding the old one still sees it whole', () => {
    const dir = tempDir();
    const file = join(dir, 'ready.json');
    writeFileSync(file, '{"old":true}');
    // A second name for the old file's contents: a write in place would change it too.
    linkSync(file, join(dir, 'old.json'));
    writeReadyFile(file, info);
    expect(readFileSync(join(dir, 'old.json'), 'utf8')).toBe('{"old":true}');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(info);
  });

  it('removes a stale file before the start, refuses a folder it cannot write, and is removed on stop', () => {
    const dir = tempDir();
    const file = join(dir, 'ready.json');
    writeFileSync(file, 'stale');
    prepareReadyFile(file);
    expect(existsSync(file)).toBe(false);
    expect(() => prepareReadyFile(join(dir, 'missing', 'ready.json'))).toThrow(ReadyFileError);
    expect(() => prepareReadyFile(join(dir, 'missing', 'ready.json'))).toThrow(
      /^--ready-file .*missing\/ready\.json: cannot write there \(ENOENT\)$/,
    );
    expect(() => writeReadyFile(join(dir, 'missing', 'ready.json'), info)).toThrow(ReadyFileError);
    expect(readdirSync(dir)).toEqual([]);
    writeReadyFile(file, info);
    removeReadyFile(file);
    expect(existsSync(file)).toBe(false);
  });
});
