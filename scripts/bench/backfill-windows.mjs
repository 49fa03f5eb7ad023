/**
 * What the throttle bench records per window (an idle one, or one a pass runs in): the in-process request latencies,
 * every pool checkout (queued behind a full pool or not, and how long it waited), the event loop's delay, the GC
 * pauses, and per statement what PostgreSQL itself counted (pg_stat_statements: calls, server time, buffers).
 */
import { memoryUsage } from 'node:process';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export const now = () => performance.timeOrigin + performance.now();

/** p50 / p95 / p99 / max of `values` (nearest rank), and how many. */
export function spread(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return { n: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: sorted.at(-1) ?? 0 };
}

export const fmt = (s) =>
  `p50 ${s.p50.toFixed(2)}  p95 ${s.p95.toFixed(2)}  p99 ${s.p99.toFixed(2)}  max ${s.max.toFixed(2)} ms (n ${s.n})`;

/**
 * Times every checkout of `pool` (a `pg.Pool`: what TypeORM's `driver.master` is): whether it found the pool full
 * (every connection out, so it queued) and how long until it had a client. Also samples the pool's counters every
 * 5 ms. Answers `{ take() }`: the checkouts and samples since the last take.
 */
export function watchPool(pool) {
  const max = pool.options.max;
  let checkouts = [];
  let samples = { n: 0, full: 0, waiting: 0, maxWaiting: 0 };
  const connect = pool.connect.bind(pool);
  pool.connect = (callback) => {
    const t = now();
    const queued = pool.idleCount === 0 && pool.totalCount >= max;
    const record = () => checkouts.push({ queued, ms: now() - t });
    if (callback === undefined) return connect().then((client) => (record(), client));
    return connect((error, client, release) => {
      record();
      callback(error, client, release);
    });
  };
  const timer = setInterval(() => {
    samples.n++;
    if (pool.idleCount === 0 && pool.totalCount >= max) samples.full++;
    if (pool.waitingCount > 0) samples.waiting++;
    samples.maxWaiting = Math.max(samples.maxWaiting, pool.waitingCount);
  }, 5);
  timer.unref();
  return {
    max,
    take() {
      const taken = { checkouts, samples };
      checkouts = [];
      samples = { n: 0, full: 0, waiting: 0, maxWaiting: 0 };
      return taken;
    },
    stop: () => clearInterval(timer),
  };
}

/** GC pauses and event-loop delay of this process, per window. */
export function watchProcess() {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcs = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const a = performance.timeOrigin + entry.startTime;
      // a scavenge (minor) copies what is alive in the young generation; a major GC follows what was promoted
      const major = entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
      gcs.push({ a, b: a + entry.duration, ms: entry.duration, major });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    take() {
      const taken = {
        loop: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
        gc: {
          n: gcs.length,
          totalMs: gcs.reduce((sum, g) => sum + g.ms, 0),
          maxMs: Math.max(0, ...gcs.map((g) => g.ms)),
          majorN: gcs.filter((g) => g.major).length,
          majorMs: gcs.filter((g) => g.major).reduce((sum, g) => sum + g.ms, 0),
          heapMiB: memoryUsage().heapUsed / 1024 / 1024,
          pauses: gcs,
        },
      };
      loop.reset();
      gcs = [];
      return taken;
    },
    stop() {
      loop.disable();
      observer.disconnect();
    },
  };
}

/** The statements this window ran, as PostgreSQL counted them (`client` is outside the app's pool). */
export async function statementCounts(client) {
  const { rows } = await client.query(
    `select query, calls::int, total_exec_time, max_exec_time, shared_blks_hit + shared_blks_read as blocks,
            shared_blks_read as read, wal_records::int
     from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`,
  );
  await client.query('select pg_stat_statements_reset()');
  const pick = (re) => {
    const hit = rows.filter((r) => re.test(r.query));
    const calls = hit.reduce((a, r) => a + r.calls, 0);
    return {
      calls,
      meanMs: calls === 0 ? 0 : hit.reduce((a, r) => a + r.total_exec_time, 0) / calls,
      maxMs: Math.max(0, ...hit.map((r) => r.max_exec_time)),
      blocksPerCall: calls === 0 ? 0 : hit.reduce((a, r) => a + Number(r.blocks), 0) / calls,
      readPerCall: calls === 0 ? 0 : hit.reduce((a, r) => a + Number(r.read), 0) / calls,
    };
  };
  return {
    request: pick(/"FeedPost"."org_id" = \$1|where org_id = \$1/),
    page: pick(/"p"."id"|where id > \$1 order by id/),
    update: pick(/update bf_feed_posts/),
    statements: rows.reduce((a, r) => a + r.calls, 0),
    walRecords: rows.reduce((a, r) => a + r.wal_records, 0),
  };
}
