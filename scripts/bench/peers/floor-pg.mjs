/**
 * The PostgreSQL floor (`BENCH_PEERS=floor`, on by default beside `ours`): what this machine's PostgreSQL and the `pg`
 * client allow any library, measured through the same scenarios and processes as the peers, so each of our figures is
 * printed beside the figure that bounds it.
 *
 * - An enqueue is a bare committed `INSERT` of one bigint into a one-column table (no index, no trigger, no NOTIFY),
 *   a named statement on a pool of 10 as ours opens at its defaults. Serial, it is the floor of a serial enqueue.
 * - It has no worker and no wake: its pickup latencies are the producer processes' own, from just before the call to
 *   its commit acknowledged (`bodies = false`) — the enqueue commit's WAL flush, at 20/s from one process and at 500/s
 *   from four, and of 1,000 calls at once from one (a pool of 10 sends them 10 at a time), which every PostgreSQL
 *   peer pays before any worker can see the row.
 * - `roundTrip()`: a bare `SELECT 1` round trip on the same pool, the floor of any one statement.
 */
import { pg } from '../lib.mjs';

export const label = 'floor (PostgreSQL)';
export const store = 'pg';
/** Its pickup figures are commit latencies measured in the producers: no worker body runs. */
export const bodies = false;
/** The scenarios it has a floor for. */
export const scenarios = ['pickup', 'serial'];
/** Its rows in the floors table (`floor-table.mjs`): which figure of ours each of its figures bounds. */
export const rows = [
  [
    'serial',
    'serial enqueue',
    'jobs/s',
    0,
    'serial',
    'serial bare committed INSERT, one-column table',
  ],
  ['serial wal', 'serial enqueue, WAL a job', 'bytes', 0, 'serial wal', 'that INSERT'],
  [
    'serial statements',
    'serial enqueue, statements a job',
    '',
    2,
    'serial statements',
    'that INSERT',
  ],
  ['steady p50', 'pickup, 20/s: p50', 'ms', 1, 'steady p50', 'that INSERT committed, 20/s'],
  ['steady p99', 'pickup, 20/s: p99', 'ms', 1, 'steady p99', 'that INSERT committed, 20/s'],
  [
    'rate500 p99',
    'pickup, 500/s from 4: p99',
    'ms',
    1,
    'rate500 p99',
    'that INSERT committed, 500/s',
  ],
  [
    'burst p99',
    'pickup, burst of 1,000: p99',
    'ms',
    1,
    'burst p99',
    'that INSERT committed, 1,000 calls at once',
  ],
  [
    'ack steady p50',
    'enqueue committed, 20/s: p50',
    'ms',
    1,
    'steady p50',
    'that INSERT committed',
  ],
  [
    'ack steady p99',
    'enqueue committed, 20/s: p99',
    'ms',
    1,
    'steady p99',
    'that INSERT committed',
  ],
  [
    'ack rate500 p99',
    'enqueue committed, 500/s from 4: p99',
    'ms',
    1,
    'rate500 p99',
    'that INSERT, 500/s',
  ],
  [
    'ack burst p99',
    'enqueue committed, burst of 1,000: p99',
    'ms',
    1,
    'burst p99',
    'that INSERT, 1,000 at once',
  ],
  [null, 'one statement', 'µs', 0, 'round trip', 'a bare SELECT 1 round trip, serial'],
];

const INSERT = { name: 'floor_insert', text: 'insert into floor_jobs (n) values ($1)' };
/** A bare round trip, named as the floors' other statements are. */
export const SELECT_1 = { name: 'floor_select_1', text: 'select 1' };

/**
 * A producer's pool as ours opens at its defaults: 10 connections, one kept open through a quiet spell (pg closes the
 * others after 10 s idle). Without it, the three producers that sit out the 20/s scenario (10.5 s) met the 500/s flood
 * with no connection, and each opened several at once — their authentication and first statements — which was the
 * floor's 500/s p99 (286 / 224 ms for ours in two runs without one, 24 / 24 with it).
 */
export async function floorPool(url) {
  const pool = new pg.Pool({ connectionString: url, max: 10, min: 1 });
  pool.on('error', () => {});
  // the kept connection opened now, as ours opens its own at boot
  (await pool.connect()).release();
  return pool;
}

/** The one-column table. */
export async function prepare({ url }) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create table floor_jobs (n bigint)');
  } finally {
    await client.end();
  }
  return { url };
}

export async function producer({ url }) {
  const pool = await floorPool(url);
  return {
    enqueue: (_queue, data) => pool.query({ ...INSERT, values: [data.n] }),
    enqueueBatch() {
      throw new Error('floor (PostgreSQL): no bulk floor');
    },
    /** Microseconds per bare `SELECT 1`, `total` of them one after another after `warm` untimed ones. */
    async roundTrip(total = 2_000, warm = 500) {
      for (let i = 0; i < warm; i++) await pool.query(SELECT_1);
      const started = performance.now();
      for (let i = 0; i < total; i++) await pool.query(SELECT_1);
      return ((performance.now() - started) * 1_000) / total;
    },
    close: () => pool.end(),
  };
}

/** No worker: the floor of a pickup here is the producer's commit. */
export async function worker() {
  return { stop: async () => {} };
}

/** Nothing is ever outstanding: no job is claimed. */
export async function outstanding() {
  return 0;
}
