import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../sandbox';
import { checkStatePath, readStateFile, StateFileError, StateSaveError, writeStateFile, type StateFileHandle } from './file';
import { NOT_LINED, readLinedState } from './lined';
import { tmpfsForBlock } from '../../../test/support/tmpfs';

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
  it('writes chunks whose text is JSON.stringify of the document, one item of a list a line', async () => {
    await someOrders(30);
    const chunks = sandbox.exportStateChunks();
    // Decision 029: a line break before each item and each list's end, and nowhere else.
    expect(chunks.join('').replaceAll('\n', '')).toBe(JSON.stringify(sandbox.exportState()));
    expect(
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.includes('"customer_reference":')).length,
    ).toBe(30);
    const file = join(dir, 'a.json');
    const bytes = await writeStateFile(file, chunks);
    expect(bytes).toBe(Buffer.byteLength(chunks.join('')));
    expect(readFileSync(file, 'utf8')).toBe(chunks.join(''));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('reads a file streamed exactly as JSON.parse would (the path for files too large to be one string)', async () => {
    const file = join(dir, 'b.json');
    await writeStateFile(file, sandbox.exportStateChunks());
    const parsed = await readStateFile(file, { lined: false });
    const streamed = await readStateFile(file, { lined: false, streamAboveBytes: 0 });
    expect(streamed).toEqual(parsed);
    expect(streamed!.orders).toHaveLength(30);
  });

  it('reads a document line by line exactly as JSON.parse and the schema would (decision 029)', async () => {
    const file = join(dir, 'lined.json');
    await writeStateFile(file, sandbox.exportStateChunks());
    const whole = await readStateFile(file, { lined: false });
    // The same values; the keys of an object stay in the document's order (zod's are its schema's).
    expect(await readStateFile(file)).toStrictEqual(whole);
  });

  it('reads lines cut by its reads of 4 MiB, and a line longer than two of them, exactly as JSON.parse would', async () => {
    const file = join(dir, 'long-lines.json');
    if (sandbox.orders.store.size < 5) await someOrders(5);
    const lines = sandbox.exportStateChunks().join('').split('\n');
    const at = lines.findIndex((line) => line.includes('"customer_reference":"c2"'));
    // 9 MiB of metadata in one order (two reads and more), and 3,000 copies of a quote-sized
    // line ahead of it so that lines fall across the reads' ends.
    lines[at] = lines[at]!.replace(/"metadata":\{[^}]*\}/, `"metadata":{"big":"${'é'.repeat(9 * 2 ** 20)}"}`);
    const pad = JSON.stringify({ pad: 'x'.repeat(3000) });
    const head = lines.findIndex((line) => line.endsWith('"partners":['));
    const text = [
      ...lines.slice(0, head),
      lines[head]!.replace('"partners":[', `"padding":[\n${Array(3000).fill(pad).join(',\n')}\n],"partners":[`),
      ...lines.slice(head + 1),
    ].join('\n');
    writeFileSync(file, text);
    const whole = await readStateFile(file, { lined: false });
    const lined = await readLinedState(file);
    expect(lined).not.toBe(NOT_LINED);
    expect(lined).toStrictEqual(whole);
    expect(
      (lined as { orders: Array<{ metadata: { big?: string } | null }> }).orders.find((o) => o.metadata?.big)?.metadata?.big,
    ).toHaveLength(9 * 2 ** 20);
  });

  it('lets the event loop run while it reads a document line by line (CONTRACT §9)', async () => {
    const file = join(dir, 'lined.json');
    let work = 0;
    let yields = 0;
    // Each look at the time is 1 ms of work; a slice is 5 ms: a yield every few lines.
    const slicing = { now: () => work++, sliceMs: 5, yield: async () => void yields++ };
    const doc = await readLinedState(file, slicing);
    expect(doc).toStrictEqual(await readStateFile(file, { lined: false }));
    expect(yields).toBeGreaterThan(30 / 5);
  });

  it('reads line by line a saved document an editor gave a byte order mark or Windows line breaks', async () => {
    const expected = await readStateFile(join(dir, 'lined.json'), { lined: false });
    const text = readFileSync(join(dir, 'lined.json'), 'utf8');
    for (const [name, edited] of [
      ['bom.json', `\uFEFF${text}`],
      ['crlf.json', text.replaceAll('\n', '\r\n')],
      ['bom-crlf.json', `\uFEFF${text.replaceAll('\n', '\r\n')}`],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, edited);
      // Not the whole read's fallback (as slow as before decision 029 for a large document).
      const lined = await readLinedState(file);
      expect(lined, name).not.toBe(NOT_LINED);
      expect(lined, name).toStrictEqual(expected);
    }
  });

  it('still loads a document of one line (saved before decision 029), and one a person re-formatted', async () => {
    const expected = await readStateFile(join(dir, 'lined.json'), { lined: false });
    const old = join(dir, 'one-line.json');
    writeFileSync(old, JSON.stringify(sandbox.exportState()));
    expect(readFileSync(old, 'utf8')).not.toContain('\n');
    expect(await readStateFile(old)).toEqual(expected);
    expect(await readStateFile(old, { streamAboveBytes: 0 })).toEqual(expected);
    const pretty = join(dir, 'pretty.json');
    writeFileSync(pretty, JSON.stringify(sandbox.exportState(), null, 2));
    expect(await readStateFile(pretty)).toEqual(expected);
  });

  it('loads a document saved before decision 029 (one line, committed as the old code wrote it), and saves it back the same', async () => {
    const fixture = new URL('./fixtures/one-line-v1.json', import.meta.url).pathname;
    const text = readFileSync(fixture, 'utf8');
    expect(text).not.toContain('\n');
    const doc = await readStateFile(fixture);
    expect(await readStateFile(fixture, { streamAboveBytes: 0 })).toEqual(doc);
    const old = createSandbox({ clockMode: 'manual', logLevel: 'silent', seed: 29, initialState: doc });
    try {
      expect(old.orders.store.orders.size).toBe(2);
      expect(JSON.parse(old.exportStateChunks().join(''))).toStrictEqual(JSON.parse(text));
    } finally {
      old.close();
    }
  });

  it('names the field and the order of a saved document edited by hand, read line by line', async () => {
    const file = join(dir, 'edited.json');
    const lines = sandbox.exportStateChunks().join('').split('\n');
    const at = lines.findIndex((line) => line.includes('"customer_reference":"c3"'));
    const reference = (JSON.parse(lines[at]!.replace(/,$/, '')) as { reference: string }).reference;
    const index = lines
      .slice(0, at)
      .reverse()
      .findIndex((line) => line.endsWith('"orders":['));
    const original = lines[at]!;
    lines[at] = original.replace('"status":"awaiting_user_payment"', '"status":"nearly_done"');
    writeFileSync(file, lines.join('\n'));
    await expect(readStateFile(file)).rejects.toThrow(
      new RegExp(`edited\\.json: orders\\.${index}\\.status: .* \\(order ${reference}\\)$`),
    );
    // Not JSON any more (a comma gone): the file is read whole, and that says where.
    lines[at] = original.replace(/,$/, '');
    writeFileSync(file, lines.join('\n'));
    await expect(readStateFile(file)).rejects.toThrow(/edited\.json: not a JSON document/);
    writeFileSync(file, lines.slice(0, at).join('\n'));
    await expect(readStateFile(file)).rejects.toThrow(/edited\.json: not a JSON document/);
  });

  it('validates a list written inline on a line of fields as the whole read does (not the layout)', async () => {
    if (sandbox.orders.store.size < 5) await someOrders(5);
    const file = join(dir, 'inline.json');
    const lines = sandbox.exportStateChunks().join('').split('\n');
    const opens = lines.indexOf('],"orders":[');
    const closes = lines.findIndex((line) => line.startsWith('],"evicted_orders":'));
    const orders = lines.slice(opens + 1, closes).map((line) => JSON.parse(line.replace(/,$/, '')) as Record<string, unknown>);
    expect(orders.length).toBeGreaterThan(1);
    const inline = (list: unknown[]) => [
      ...lines.slice(0, opens),
      `],"orders":${JSON.stringify(list)}${lines[closes]!.slice(1)}`,
      ...lines.slice(closes + 1),
    ];
    // Valid inline: it loads, the same as the saved layout.
    writeFileSync(file, inline(orders).join('\n'));
    const saved = join(dir, 'inline-saved.json');
    writeFileSync(saved, lines.join('\n'));
    expect(await readStateFile(file)).toEqual(await readStateFile(saved));
    // An order the routes never make, inline: refused with its field, as PUT /sandbox/state refuses it.
    writeFileSync(file, inline([orders[0], { ...orders[1], from: { ...(orders[1]!.from as object), amount: -5 } }]).join('\n'));
    await expect(readStateFile(file)).rejects.toThrow(/inline\.json: orders\.1\.from\.amount: Too small/);
    // The same on the document's first line: a partner inline there is checked too.
    const head = JSON.parse(`${lines[0]}]}`) as Record<string, unknown>;
    const partner = JSON.parse(lines[1]!.replace(/,$/, '')) as Record<string, unknown>;
    const first = JSON.stringify({ ...head, partners: [{ ...partner, name: '' }], revoked_keys: [] }).replace(/\[\]\}$/, '[');
    writeFileSync(file, [first, ...lines.slice(lines.indexOf('],"revoked_keys":[') + 1)].join('\n'));
    await expect(readStateFile(file)).rejects.toThrow(/inline\.json: partners\.0\.name: /);
  });

  it('refuses an order nested deeper than the document allows, wherever its schema lets it nest, read line by line', async () => {
    const file = join(dir, 'deep.json');
    if (sandbox.orders.store.size < 5) await someOrders(5);
    const lines = sandbox.exportStateChunks().join('').split('\n');
    const at = lines.findIndex((line) => line.includes('"customer_reference":"c4"'));
    const index = lines
      .slice(0, at)
      .reverse()
      .findIndex((line) => line.endsWith('"orders":['));
    const original = lines[at]!;
    const reference = (JSON.parse(original.replace(/,$/, '')) as { reference: string }).reference;
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    // Metadata (the order's third level of the document) may hold 69 levels more, not 70.
    lines[at] = original.replace(/"metadata":\{[^}]*\}/, `"metadata":{"x":${deep(68)}}`);
    writeFileSync(file, lines.join('\n'));
    await expect(readStateFile(file)).resolves.toBeDefined();
    for (const [edit, field] of [
      [original.replace(/"metadata":\{[^}]*\}/, `"metadata":{"x":${deep(69)}}`), 'metadata'],
      [original.replace(/"metadata":\{[^}]*\}/, `"metadata":{"x":${deep(100_000)}}`), 'metadata'],
      [original.replace('"details":null', `"details":{"x":${deep(100_000)}}`), 'timeline'],
    ] as const) {
      lines[at] = edit;
      writeFileSync(file, lines.join('\n'));
      await expect(readStateFile(file)).rejects.toThrow(
        `deep.json: orders.${index}.${field}: nested deeper than 72 levels (order ${reference})`,
      );
    }
    // Nested deep where the schema wants a value of its own: that value is named (no stack is spent).
    lines[at] = original.replace(/"payinRefs":\[[^\]]*\]/, `"payinRefs":[${deep(100_000)}]`);
    writeFileSync(file, lines.join('\n'));
    await expect(readStateFile(file)).rejects.toThrow(
      new RegExp(`deep\\.json: orders\\.${index}\\.payinRefs\\.0: .* \\(order ${reference}\\)$`),
    );
  });

  it('names a version of another format first, whatever its orders hold', async () => {
    const file = join(dir, 'v2.json');
    const text = sandbox
      .exportStateChunks()
      .join('')
      .replace('{"version":1,', '{"version":2,')
      .replace('"status":"awaiting_user_payment"', '"status":"nearly_done"');
    writeFileSync(file, text);
    await expect(readStateFile(file)).rejects.toThrow(/v2\.json: version: /);
  });

  it('names the file and the reason when a file is not a state document, streamed or not', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"version":1,"orders":[');
    await expect(readStateFile(file)).rejects.toThrow(StateFileError);
    await expect(readStateFile(file, { streamAboveBytes: 0 })).rejects.toThrow(/broken\.json: not a JSON document/);
    writeFileSync(file, JSON.stringify({ version: 1 }));
    await expect(readStateFile(file)).rejects.toThrow(/broken\.json: sandbox_version: /);
    expect(await readStateFile(join(dir, 'absent.json'))).toBeUndefined();
    // An empty file (`touch`) is not a fresh start: whatever emptied it, the start stops and says so.
    writeFileSync(file, '');
    await expect(readStateFile(file)).rejects.toThrow(
      /broken\.json: the file is empty, not a state document \(remove it to start an empty sandbox\)$/,
    );
  });

  it('reads a document from a pipe, which has no size to call it empty (`--state <(…)`)', async () => {
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const text = readFileSync(join(dir, 'lined.json'));
    const writing = open(fifo, 'w').then(async (handle) => {
      await handle.write(text);
      await handle.close();
    });
    // (should the read refuse without opening the pipe, it is opened here, so the writer is not left waiting)
    const reading = readStateFile(fifo).catch(async (error: unknown) => {
      await (await open(fifo, 'r')).close();
      throw error;
    });
    const [doc] = await Promise.all([reading, writing.catch(() => {})]);
    expect(doc).toStrictEqual(await readStateFile(join(dir, 'lined.json'), { lined: false }));
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

  // Issue: a save on a full disk truncated the file, answered 200 and replaced the good file.
  // write(2) may store fewer bytes than asked without failing; the next write then fails.
  /** A real file handle whose writes store at most `max` bytes each, and none past `room` in all. */
  const shortWrites = (max: number, room = Number.POSITIVE_INFINITY) => {
    const calls: number[] = [];
    let stored = 0;
    const openShort = async (path: string): Promise<StateFileHandle> => {
      const file = await open(path, 'w');
      return {
        write: async (buffer, offset, length) => {
          const n = Math.max(0, Math.min(max, length, room - stored));
          calls.push(n);
          stored += n;
          return n === 0 ? { bytesWritten: 0 } : file.write(buffer, offset, n);
        },
        stat: () => file.stat(),
        sync: () => file.sync(),
        close: () => file.close(),
      };
    };
    return { open: openShort, calls };
  };

  it('follows short writes until every byte of the document is stored', async () => {
    const file = join(dir, 'short.json');
    const chunks = sandbox.exportStateChunks();
    const text = chunks.join('');
    const short = shortWrites(1000);
    const bytes = await writeStateFile(file, chunks, { open: short.open });
    expect(bytes).toBe(Buffer.byteLength(text));
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(short.calls.length).toBeGreaterThan(Buffer.byteLength(text) / 1000);
  });

  it('fails a save whose writes stop storing bytes (a full disk), keeping the previous file whole', async () => {
    const file = join(dir, 'full.json');
    writeFileSync(file, '"before"');
    const short = shortWrites(4096, 10_000);
    await expect(writeStateFile(file, sandbox.exportStateChunks(), { open: short.open })).rejects.toThrow(
      /could not write .*full\.json: a write stored \d+ of \d+ bytes and then none: the device is probably full/,
    );
    expect(readFileSync(file, 'utf8')).toBe('"before"');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('flushes to disk while the document is made, and fails the save when a flush fails, keeping the previous file whole', async () => {
    const file = join(dir, 'flush.json');
    writeFileSync(file, '"before"');
    const chunks = Array.from({ length: 6 }, (_, i) => `${i === 0 ? '[' : ','}"${'x'.repeat(1000)}"${i === 5 ? ']' : ''}`);
    // Every flush counted: one each 2,000 bytes while the chunks come, then the last one.
    const short = shortWrites(Number.POSITIVE_INFINITY);
    let syncs = 0;
    const counting = async (path: string): Promise<StateFileHandle> => {
      const handle = await short.open(path);
      return {
        ...handle,
        sync: () => {
          syncs++;
          return handle.sync();
        },
      };
    };
    await writeStateFile(file, chunks, { open: counting, flushEveryBytes: 2000 });
    expect(readFileSync(file, 'utf8')).toBe(chunks.join(''));
    expect(syncs).toBeGreaterThan(1);
    // A flush that fails mid-save (EIO): Linux reports a write-back error to one fsync only, so
    // the last flush could succeed; the save fails all the same.
    writeFileSync(file, '"before"');
    const failing = async (path: string): Promise<StateFileHandle> => {
      const handle = await short.open(path);
      let n = 0;
      return {
        ...handle,
        sync: async () => {
          await handle.sync();
          if (n++ === 0) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        },
      };
    };
    await expect(writeStateFile(file, chunks, { open: failing, flushEveryBytes: 2000 })).rejects.toThrow(
      /could not write .*flush\.json: EIO/,
    );
    expect(readFileSync(file, 'utf8')).toBe('"before"');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses to rename a temporary file whose size is not the bytes written', async () => {
    const file = join(dir, 'size.json');
    writeFileSync(file, '"before"');
    const short = shortWrites(Number.POSITIVE_INFINITY);
    const lying = async (path: string): Promise<StateFileHandle> => ({ ...(await short.open(path)), stat: async () => ({ size: 3 }) });
    await expect(writeStateFile(file, ['{"a":1}'], { open: lying })).rejects.toThrow(/the file holds 3 bytes of the 7 written/);
    expect(readFileSync(file, 'utf8')).toBe('"before"');
  });

  describe('on a real file system that fills up (a 1 MiB tmpfs)', () => {
    const mounted = tmpfsForBlock(1024 * 1024);
    it('answers ENOSPC for a document larger than the space left, keeping the previous file whole', async (ctx) => {
      const fs = mounted();
      if (typeof fs === 'string') return ctx.skip(fs);
      const { dir: disk } = fs;
      const file = join(disk, 'sandbox.json');
      writeFileSync(file, '"before"');
      // One chunk of 2 MiB: the first write stores 1 MiB less what is used, the next one fails.
      const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) });
      await expect(writeStateFile(file, [big])).rejects.toThrow(/could not write .*sandbox\.json: no space left on the device \(ENOSPC\)/);
      expect(readFileSync(file, 'utf8')).toBe('"before"');
      expect(readdirSync(disk)).toEqual(['sandbox.json']);
    });
  });
});
