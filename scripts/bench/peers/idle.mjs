/**
 * What an idle worker costs its store, every selected peer at once (idle workers do not contend): a worker process
 * each on an empty store, left to back off, then its statements counted over three windows — from
 * `pg_stat_statements` per database for the PostgreSQL peers (every statement the server ran for it, BEGIN and COMMIT
 * included), from `INFO commandstats` for Redis (commands run inside a Lua script count too; INFO itself does not).
 */
import { spawnWorker } from './scenarios.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Statements the server ran in database `name` so far (BEGIN and COMMIT included). */
export async function pgCount(admin, name) {
  const { rows } = await admin.query(
    `select coalesce(sum(calls), 0)::float8 as n from pg_stat_statements
     where dbid = (select oid from pg_database where datname = $1)`,
    [name],
  );
  return rows[0].n;
}

/** Commands the Redis server ran so far, but its INFO. */
async function redisCount(redis) {
  const stats = await redis.info('commandstats');
  let total = 0;
  for (const [, command, calls] of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (command !== 'info') total += Number(calls);
  return total;
}

/**
 * `stores` is `[{ peer, adapter, context, database? }]`; answers per peer the per-minute counts of `windows` windows
 * of `windowMs` each, after `settleMs` of idling. `admin` is a pg client on the server, `redis` an ioredis client.
 */
export async function idleCosts(stores, { admin, redis, settleMs, windowMs, windows }) {
  const workers = await Promise.all(
    stores.map(({ peer, context }) => spawnWorker(peer, context, 'pickup')),
  );
  const count = ({ adapter, database }) =>
    adapter.store === 'redis' ? redisCount(redis) : pgCount(admin, database);
  const countAll = async () => {
    const counts = [];
    for (const store of stores) counts.push(await count(store)); // one admin session: one at a time
    return counts;
  };
  try {
    await sleep(settleMs);
    const perMinute = stores.map(() => []);
    for (let w = 0; w < windows; w++) {
      const before = await countAll();
      await sleep(windowMs);
      const after = await countAll();
      stores.forEach((_, i) => perMinute[i].push(((after[i] - before[i]) * 60_000) / windowMs));
    }
    return perMinute;
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}
