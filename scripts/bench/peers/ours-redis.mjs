/**
 * Ours on Redis (`@ultimat3/jobs-redis`, built code) on the runner's local redis-server: the same no-op job as
 * `ours.mjs`, one deployment prefix, the worker handed the backend's wake (sharded pub/sub, proven before it starts).
 * Redis acknowledges a write before any fsync here (no persistence configured), as for BullMQ.
 */
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from '../lib.mjs';
import { oursAdapter } from './ours-common.mjs';

const require = createRequire(import.meta.url);
const jobsRedis = require(join(ROOT, 'libs', 'jobs-redis', 'dist', 'index.js'));

export const label = 'ours (Redis)';
export const store = 'redis';

const PREFIX = 'bench';
const open = ({ redisUrl }) => jobsRedis.redisBackend({ url: redisUrl, prefix: PREFIX });

export const { producer, worker } = oursAdapter({
  open,
  async startWake(backend, running) {
    const wake = backend.startWake(running);
    while (!backend.driver.wake.live) await new Promise((resolve) => setTimeout(resolve, 5));
    return wake;
  },
});

/** Nothing to install: the runner flushed the server. */
export async function prepare({ redisUrl }) {
  return { redisUrl };
}

/**
 * Jobs of `queue` not finished yet (the driver's own queue counts), on one backend opened at the first call and kept
 * for the drain's polls (as the PostgreSQL peers count on the runner's one connection): a backend opened and closed
 * every 5 ms loaded the server the drain is measured on. `release` closes it.
 */
export async function outstanding(ctx, queue) {
  ctx.counting ??= Promise.resolve(open(ctx));
  const backend = await ctx.counting;
  const q = (await backend.driver.stats()).find((s) => s.queue === queue);
  if (!q) return 0;
  return ['ready', 'delayed', 'running', 'suspended'].reduce((sum, s) => sum + (q[s] ?? 0), 0);
}

/** Closes what `outstanding` kept open. */
export async function release(ctx) {
  const counting = ctx.counting;
  ctx.counting = undefined;
  if (counting) await (await counting).close();
}
