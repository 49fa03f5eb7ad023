/**
 * The PostgreSQL wake floor (`BENCH_PEERS=floor`, on by default beside `ours`): the fastest a job committed by one
 * process can start in another on this machine's PostgreSQL, through the same pickup scenario and processes as the
 * peers. The producer commits a bare `INSERT` and a `NOTIFY` carrying the job in one statement (a pool of 10, as ours
 * opens); the worker process, `LISTEN`ing on its own session, sends one statement on another (a `SELECT 1`, where a
 * worker would claim) and starts the body once that answers. Every committing transaction that notified takes
 * PostgreSQL's one notify lock until its commit is flushed, so at 500/s from four processes these commits queue behind
 * each other (its run line prints that figure: the cost of a wake on every enqueue, not a floor of ours, so the floors
 * table shows its 20/s rows only).
 */
import { pg } from '../lib.mjs';
import { floorPool, SELECT_1 } from './floor-pg.mjs';

/** The same one-column table as the bare floor's; nothing is ever outstanding, no job is claimed. */
export { outstanding, prepare } from './floor-pg.mjs';

export const label = 'floor (PostgreSQL wake)';
export const store = 'pg';
export const bodies = true;
/** The scenarios it has a floor for. */
export const scenarios = ['pickup'];
/** Its rows in the floors table (`floor-table.mjs`): which figure of ours each of its figures bounds. */
export const rows = [
  [
    'steady p50',
    'pickup, 20/s: p50',
    'ms',
    1,
    'steady p50',
    'INSERT + NOTIFY → LISTEN → one SELECT 1',
  ],
  [
    'steady p99',
    'pickup, 20/s: p99',
    'ms',
    1,
    'steady p99',
    'INSERT + NOTIFY → LISTEN → one SELECT 1',
  ],
];

const channelOf = (queue) => `floor_${queue}`;
const NOTIFYING_INSERT = {
  name: 'floor_notify',
  text: 'with added as (insert into floor_jobs (n) values ($1)) select pg_notify($2, $3)',
};

export async function producer({ url }) {
  const pool = await floorPool(url);
  return {
    enqueue: (queue, data) =>
      pool.query({ ...NOTIFYING_INSERT, values: [data.n, channelOf(queue), JSON.stringify(data)] }),
    enqueueBatch() {
      throw new Error('floor (PostgreSQL wake): no bulk floor');
    },
    close: () => pool.end(),
  };
}

export async function worker({ url }, { queue, onJob }) {
  const listener = new pg.Client({ connectionString: url });
  const claimer = new pg.Client({ connectionString: url });
  await Promise.all([listener.connect(), claimer.connect()]);
  // one statement at a time on the claiming session, in arrival order (a session runs one at a time anyway)
  let claims = Promise.resolve();
  listener.on('notification', ({ payload }) => {
    claims = claims.then(async () => {
      await claimer.query(SELECT_1);
      onJob(JSON.parse(payload));
    });
  });
  await listener.query(`listen ${channelOf(queue)}`);
  return {
    async stop() {
      await listener.end();
      await claims;
      await claimer.end();
    },
  };
}
