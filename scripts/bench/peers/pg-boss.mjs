/**
 * pg-boss 10: one `PgBoss` per process at its defaults (pool of 10, maintenance and cron monitoring on) and one
 * `work()` loop fetching batches of up to 1,000 jobs, polling every 0.5 s — the shortest interval it accepts; it has
 * no cross-process wake. A batch runs 10 jobs at a time (concurrency 10; pg-boss 10 has no concurrency option, and
 * each extra `work()` loop would add its own poll). `send` one at a time, `insert` for a batch.
 */
import PgBoss from 'pg-boss';

export const label = 'pg-boss 10 (batch fetch)';
export const store = 'pg';

const QUEUES = ['pickup', 'drain', 'serial', 'warm'];
const BATCH = 1_000;

async function open(url) {
  const boss = new PgBoss({ connectionString: url });
  boss.on('error', (error) => console.error(`pg-boss: ${error.message}`));
  await boss.start();
  return boss;
}

/** Creates the schema and the queues (pg-boss 10 needs a queue created before use). */
export async function prepare({ url }) {
  const boss = await open(url);
  for (const queue of QUEUES) await boss.createQueue(queue);
  await boss.stop({ graceful: false, wait: true });
  return { url };
}

export async function producer({ url }) {
  const boss = await open(url);
  return {
    enqueue: (queue, data) => boss.send(queue, data),
    enqueueBatch: (queue, datas) => boss.insert(datas.map((data) => ({ name: queue, data }))),
    close: () => boss.stop({ graceful: false, wait: true }),
  };
}

export async function worker({ url }, { queue, concurrency, onJob }) {
  const boss = await open(url);
  await boss.work(queue, { batchSize: BATCH, pollingIntervalSeconds: 0.5 }, async (batch) => {
    let next = 0;
    const lane = async () => {
      while (next < batch.length) await onJob(batch[next++].data);
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
  });
  return { stop: () => boss.stop({ graceful: true, wait: true }) };
}

/** Jobs of `queue` not finished yet. */
export async function outstanding(_ctx, queue, sql) {
  const rows = await sql(
    `select count(*)::int as n from pgboss.job where name = $1 and state < 'completed'`,
    [queue],
  );
  return rows[0].n;
}
