import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderLifecycleDoc, transitionRows } from './lifecycle-doc';

describe('docs/lifecycle.md', () => {
  it('is up to date with the machines (run `npm run docs:lifecycle` when this fails)', () => {
    const onDisk = readFileSync(new URL('../../docs/lifecycle.md', import.meta.url), 'utf8');
    expect(onDisk).toBe(renderLifecycleDoc());
  });

  it('lists the webhook event of each happy-path step', () => {
    const rows = transitionRows('offramp');
    const into = (to: string) => rows.filter((r) => r.to === to).flatMap((r) => r.emits);
    expect(into('processing')).toContain('order.asset_locked');
    expect(into('executing')).toContain('order.fiat_sent');
    expect(into('settled')).toContain('order.settled');
    expect(into('refunded')).toContain('order.asset_refunded');
  });
});
