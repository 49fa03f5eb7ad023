/**
 * BullMQ on a local redis-server, tuned as its docs suggest for throughput: one `Worker` per queue at concurrency 10,
 * finished jobs trimmed to the last 1,000 (`removeOnComplete`), the default 5 s `drainDelay` (its blocking wait when
 * the queue is empty). `Queue.add` one at a time, `Queue.addBulk` for a batch. Redis acknowledges a write before any
 * fsync here (no persistence configured): a durability the PostgreSQL peers do not trade away.
 */
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';

export const label = 'BullMQ (Redis)';
export const store = 'redis';

const connect = (url) => new IORedis(url, { maxRetriesPerRequest: null });

/** Nothing to install: the runner flushed the server. */
export async function prepare({ redisUrl }) {
  return { redisUrl };
}

export async function producer({ redisUrl }) {
  const connection = connect(redisUrl);
  const queues = new Map();
  const queueOf = (name) => {
    if (!queues.has(name)) queues.set(name, new Queue(name, { connection }));
    return queues.get(name);
  };
  return {
    enqueue: (queue, data) => queueOf(queue).add(queue, data),
    enqueueBatch: (queue, datas) =>
      queueOf(queue).addBulk(datas.map((data) => ({ name: queue, data }))),
    async close() {
      for (const queue of queues.values()) await queue.close();
      connection.disconnect();
    },
  };
}

export async function worker({ redisUrl }, { queue, concurrency, onJob }) {
  const connection = connect(redisUrl);
  const running = new Worker(queue, async (job) => onJob(job.data), {
    connection,
    concurrency,
    removeOnComplete: { count: 1_000 },
  });
  running.on('error', (error) => console.error(`bullmq: ${error.message}`));
  await running.waitUntilReady();
  return {
    async stop() {
      await running.close();
      connection.disconnect();
    },
  };
}

/**
 * Jobs of `queue` not finished yet, on one connection and `Queue` opened at the first call and kept for the drain's
 * polls (as the PostgreSQL peers count on the runner's one connection). `release` closes them.
 */
export async function outstanding(ctx, queue) {
  ctx.counting ??= { connection: connect(ctx.redisUrl), queues: new Map() };
  const { connection, queues } = ctx.counting;
  if (!queues.has(queue)) queues.set(queue, new Queue(queue, { connection }));
  const counts = await queues.get(queue).getJobCounts('wait', 'active', 'delayed', 'prioritized');
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** Closes what `outstanding` kept open. */
export async function release(ctx) {
  const counting = ctx.counting;
  ctx.counting = undefined;
  if (!counting) return;
  for (const queue of counting.queues.values()) await queue.close();
  counting.connection.disconnect();
}
