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

/** Where workers say they are alive: one script per beat, rows expiring one visibility timeout after it. */
export function redisWorkerRegistry(ctx: RedisContext): WorkerRegistry {
  return {
    async beat(beat: WorkerBeat, visibilityTimeoutMs: number) {
      const stored: WorkerBeat = {
        ...beat,
        slots: { ...beat.slots },
        inFlight: [...boundInFlight(beat.inFlight)],
      };
      await ctx.run('workerBeat', [beat.id, visibilityTimeoutMs, JSON.stringify(stored)]);
    },
    async leave(workerId: string) {
      await ctx.client
        .multi()
        .hdel(`${ctx.prefix}wk`, workerId)
        .hdel(`${ctx.prefix}wkat`, workerId)
        .zrem(`${ctx.prefix}wkx`, workerId)
        .exec();
    },
  };
}
