import {
  boundInFlight,
  checkCounterQuery,
  COUNTER_TIERS,
  counterSince,
  sumCounters,
  type CounterBucket,
  type JobIntrospection,
  type WorkerBeat,
  type WorkerInfo,
  type WorkerRegistry,
} from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';

type Bucket = { -readonly [K in keyof CounterBucket]: CounterBucket[K] };
const FIELDS = ['done', 'retried', 'failed', 'dead', 'cancelled', 'durationMs'] as const;

/** Every counter bucket: the `job|bucketMs|bucketStart|field → n` hash folded into buckets. */
async function allBuckets(ctx: RedisContext): Promise<Bucket[]> {
  const flat = await ctx.client.hgetall(`${ctx.prefix}ctr`);
  const buckets = new Map<string, Bucket>();
  for (const [key, value] of Object.entries(flat)) {
    const m = /^(.*)\|(-?\d+)\|(-?\d+)\|(\w+)$/.exec(key);
    if (!m) continue;
    const [, job, ms, start, field] = m as unknown as [string, string, string, string, string];
    const id = `${job}|${ms}|${start}`;
    let b = buckets.get(id);
    if (!b) {
      b = {
        job,
        bucketMs: Number(ms),
        bucketStart: Number(start),
        done: 0,
        retried: 0,
        failed: 0,
        dead: 0,
        cancelled: 0,
        durationMs: 0,
      };
      buckets.set(id, b);
    }
    if ((FIELDS as readonly string[]).includes(field))
      b[field as (typeof FIELDS)[number]] += Number(value);
  }
  return [...buckets.values()];
}

/** The counter reads, `rollupCounters()` and `workers()` of the operator surface. */
export function redisCounterIntrospection(
  ctx: RedisContext,
): Pick<JobIntrospection, 'workers' | 'counters' | 'counterTotals' | 'rollupCounters'> {
  return {
    async workers() {
      const reply = await ctx.run('workers');
      const flat = Array.isArray(reply) ? reply.map(String) : [];
      const live: WorkerInfo[] = [];
      for (let i = 0; i + 2 < flat.length; i += 3) {
        const beat = JSON.parse(flat[i]!) as WorkerBeat;
        live.push({
          ...beat,
          queues: Object.keys(beat.slots).sort(),
          heartbeatAt: Number(flat[i + 1]),
          expiresAt: Number(flat[i + 2]),
        });
      }
      return live.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async counters(query) {
      const { job, sinceMs } = checkCounterQuery(query);
      const rows = (await allBuckets(ctx)).filter((b) => b.job === job && b.bucketStart >= sinceMs);
      return rows.sort((a, b) => a.bucketStart - b.bucketStart || a.bucketMs - b.bucketMs);
    },
    async counterTotals(sinceMs) {
      const since = counterSince(sinceMs, 'counterTotals()');
      return sumCounters((await allBuckets(ctx)).filter((b) => b.bucketStart >= since));
    },
    async rollupCounters() {
      const tiers = COUNTER_TIERS.flatMap((t) => [t.bucketMs, t.keepMs]);
      return Number(await ctx.run('countersRollup', [COUNTER_TIERS.length, ...tiers]));
    },
  };
}

/**
 * Where workers say they are alive: one script (one HSET) per beat, rows expiring one visibility timeout after it. A
 * beat that repeats the last one this registry wrote for the worker (same content, same timeout) is not written again
 * until half the timeout has passed since that write: the row stays live (it is rewritten at most an interval plus
 * half the timeout after the last write, well inside the timeout), an idle worker's presence costs half the writes,
 * and `workers()` shows the last beat written (at most that long ago).
 */
export function redisWorkerRegistry(ctx: RedisContext): WorkerRegistry {
  const written = new Map<string, { text: string; at: number }>();
  const now = (): number => (ctx.clock ? ctx.clock.now() : Date.now());
  return {
    async beat(beat: WorkerBeat, visibilityTimeoutMs: number) {
      const stored: WorkerBeat = {
        ...beat,
        slots: { ...beat.slots },
        inFlight: [...boundInFlight(beat.inFlight)],
      };
      const text = JSON.stringify(stored);
      const key = `${visibilityTimeoutMs}|${text}`;
      const last = written.get(beat.id);
      const sentAt = now();
      if (last?.text === key && sentAt - last.at < visibilityTimeoutMs / 2) return;
      written.delete(beat.id);
      await ctx.run('workerBeat', [beat.id, visibilityTimeoutMs, text]);
      written.set(beat.id, { text: key, at: sentAt });
    },
    async leave(workerId: string) {
      written.delete(workerId);
      await ctx.client.hdel(`${ctx.prefix}wk`, workerId);
    },
  };
}
