import { afterEach, describe, expect, it, vi } from 'vitest';
import { VirtualClock } from '../clock';
import { createBus } from '../shared/bus';
import type { CutInfo } from '../shared/sse-stream';
import { LiveFeed, type LiveEvents } from './live';

const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);

afterEach(() => {
  vi.useRealTimers();
});

// Issue item 8: a page that never reads is cut once it has left the limit unread, with one line.
describe('LiveFeed (GET /sandbox/events)', () => {
  it('cuts a stream that never reads past maxUnreadBytes, once, and keeps writing to one that reads', async () => {
    vi.useFakeTimers();
    const bus = createBus<LiveEvents>();
    const cuts: CutInfo[] = [];
    const feed = new LiveFeed({
      clock: new VirtualClock({ start: T0, mode: 'manual' }),
      bus,
      maxUnreadBytes: 32 * 1024,
      onCut: (info) => cuts.push(info),
    });
    const idle = feed.open();
    const reading = feed.open();
    let read = 0;
    reading.on('data', (chunk: Buffer) => (read += chunk.length));
    // Each flush names 50 orders (~1.5 KB): 100 flushes are ~150 KB, well past the limit.
    for (let flush = 0; flush < 100; flush++) {
      for (let i = 0; i < 50; i++) bus.emit('order.changed', `ORD${flush}_${i}_${'x'.repeat(16)}`);
      vi.advanceTimersByTime(250);
      // The reading stream takes what was written (streams move data on the next tick).
      await new Promise((r) => process.nextTick(r));
    }
    expect(idle.destroyed).toBe(true);
    expect(cuts).toEqual([{ stream: 'dashboard', unread: expect.any(Number), limit: 32 * 1024 }]);
    expect(cuts[0]!.unread).toBeGreaterThan(32 * 1024);
    expect(reading.destroyed).toBe(false);
    expect(read).toBeGreaterThan(100 * 1024);
    feed.close();
  });
});
