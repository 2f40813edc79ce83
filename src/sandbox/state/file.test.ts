import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../sandbox';
import { checkStatePath, readStateFile, StateFileError, StateSaveError, writeStateFile } from './file';

// CONTRACT §13: the state is streamed to its file and read back streamed when large; a save that
// fails says why and leaves the previous file whole; a path that cannot be written is refused.
const sandbox = createSandbox({ clockMode: 'manual', logLevel: 'silent', seed: 3 });
afterAll(() => sandbox.close());
const dir = mkdtempSync(join(tmpdir(), 'state-file-'));

async function someOrders(n: number) {
  const partner = sandbox.partners.create({ name: 'P', webhook_url: null });
  const caller = { partner, env: 'test' as const };
  for (let i = 0; i < n; i++) {
    await sandbox.orders.create(caller, {
      from: { currency: 'NGN', amount: 5000 + i },
      to: { currency: 'USDT', network: 'base-sepolia' },
      recipient: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
      customer: { reference: `c${i}`, name: 'Ada', email: 'ada@example.com' },
      metadata: { i, note: 'é😀' },
    } as never);
  }
}

describe('state file', () => {
  it('writes chunks whose text is exactly JSON.stringify of the document', async () => {
    await someOrders(30);
    const chunks = sandbox.exportStateChunks();
    expect(chunks.join('')).toBe(JSON.stringify(sandbox.exportState()));
    const file = join(dir, 'a.json');
    const bytes = await writeStateFile(file, chunks);
    expect(bytes).toBe(Buffer.byteLength(chunks.join('')));
    expect(readFileSync(file, 'utf8')).toBe(chunks.join(''));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('reads a file streamed exactly as JSON.parse would (the path for files too large to be one string)', async () => {
    const file = join(dir, 'b.json');
    await writeStateFile(file, sandbox.exportStateChunks());
    const parsed = await readStateFile(file);
    const streamed = await readStateFile(file, { streamAboveBytes: 0 });
    expect(streamed).toEqual(parsed);
    expect(streamed!.orders).toHaveLength(30);
  });

  it('names the file and the reason when a file is not a state document, streamed or not', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"version":1,"orders":[');
    await expect(readStateFile(file)).rejects.toThrow(StateFileError);
    await expect(readStateFile(file, { streamAboveBytes: 0 })).rejects.toThrow(/broken\.json: not a JSON document/);
    writeFileSync(file, JSON.stringify({ version: 1 }));
    await expect(readStateFile(file)).rejects.toThrow(/broken\.json: sandbox_version: /);
    expect(await readStateFile(join(dir, 'absent.json'))).toBeUndefined();
  });

  it('fails a save into a missing folder with the cause, leaving no temporary file', async () => {
    const file = join(dir, 'no-such-folder', 'c.json');
    await expect(writeStateFile(file, ['{}'])).rejects.toThrow(StateSaveError);
    await expect(writeStateFile(file, ['{}'])).rejects.toThrow(/could not write .*c\.json: no such file or folder/);
    await expect(checkStatePath(file)).rejects.toThrow(/cannot be written: its folder .* does not exist/);
  });

  it('keeps the previous file whole when a save fails half way', async () => {
    const file = join(dir, 'd.json');
    writeFileSync(file, '"before"');
    const failing = {
      *[Symbol.iterator]() {
        yield '{"partial":';
        throw new Error('disk gave up');
      },
    };
    await expect(writeStateFile(file, failing as unknown as string[])).rejects.toThrow(/disk gave up/);
    expect(readFileSync(file, 'utf8')).toBe('"before"');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
