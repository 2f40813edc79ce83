import type { WallClock } from '../clock';

export interface RateLimitOptions {
  /** Bucket size (CONTRACT §3: 60). */
  capacity: number;
  /** Tokens added per wall second (CONTRACT §3: 30). */
  refillPerSecond: number;
}

export interface RateLimiter {
  /** Takes `cost` tokens from `key`'s bucket; when empty, says how long to wait (whole seconds). */
  take(key: string, cost: number): { ok: true } | { ok: false; retryAfterSeconds: number };
  clear(): void;
}

/** A token bucket per key, refilled on the wall clock (CONTRACT §2: transport time). */
export function createRateLimiter(options: RateLimitOptions, wall: WallClock): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, cost) {
      const now = wall.now();
      let b = buckets.get(key);
      if (!b) {
        b = { tokens: options.capacity, at: now };
        buckets.set(key, b);
      } else {
        b.tokens = Math.min(options.capacity, b.tokens + ((now - b.at) / 1000) * options.refillPerSecond);
        b.at = now;
      }
      if (b.tokens >= cost) {
        b.tokens -= cost;
        return { ok: true };
      }
      const wait = (cost - b.tokens) / options.refillPerSecond;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(wait)) };
    },
    clear: () => buckets.clear(),
  };
}
