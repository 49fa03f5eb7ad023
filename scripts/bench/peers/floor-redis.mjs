/**
 * The Redis floor (`BENCH_PEERS=floor`, on by default beside `ours-redis`): what this machine's `redis-server` and
 * ioredis allow any library, through the same scenarios and processes as the peers.
 *
 * - Serial enqueue (the `serial` queue): a bare `EVALSHA` of `return 1`, one script call per round trip, as each of
 *   our enqueues is one script call.
 * - Pickup (every other queue): the producer `LPUSH`es the job onto a list; the worker process, blocked in `BLPOP`,
 *   takes it, sends one command (an `EVALSHA` of `return 1`, where a worker would claim) and starts the body once that
 *   answers: the floor of a cross-process wake followed by a one-round-trip claim. One loop, one job at a time.
 */
import IORedis from 'ioredis';

export const label = 'floor (Redis)';
export const store = 'redis';
export const bodies = true;
/** The scenarios it has a floor for. */
export const scenarios = ['pickup', 'serial'];
/** Its rows in the floors table (`floor-table.mjs`): which figure of ours each of its figures bounds. */
export const rows = [
  ['serial', 'serial enqueue', 'jobs/s', 0, 'serial', 'serial bare EVALSHA of `return 1`'],
  ['steady p50', 'pickup, 20/s: p50', 'ms', 2, 'steady p50', 'LPUSH → BLPOP → one EVALSHA, 20/s'],
  ['steady p99', 'pickup, 20/s: p99', 'ms', 2, 'steady p99', 'LPUSH → BLPOP → one EVALSHA, 20/s'],
  ['rate500 p99', 'pickup, 500/s from 4: p99', 'ms', 2, 'rate500 p99', 'the same, 500/s from 4'],
  [
    'ack steady p50',
    'enqueue acknowledged, 20/s: p50',
    'ms',
    2,
    'ack steady p50',
    'one LPUSH, 20/s',
  ],
  [
    'ack steady p99',
    'enqueue acknowledged, 20/s: p99',
    'ms',
    2,
    'ack steady p99',
    'one LPUSH, 20/s',
  ],
];

const RETURN_1 = 'return 1';
const SERIAL_QUEUE = 'serial';
const listOf = (queue) => `floor:${queue}`;

/** Nothing to install: the runner flushed the server. */
export async function prepare({ redisUrl }) {
  return { redisUrl };
}

/** A client with `return 1` loaded; `one()` calls it by its SHA. */
async function connect(redisUrl) {
  const client = new IORedis(redisUrl, { maxRetriesPerRequest: null });
  const sha = await client.script('LOAD', RETURN_1);
  return { client, one: () => client.evalsha(sha, 0) };
}

export async function producer({ redisUrl }) {
  const { client, one } = await connect(redisUrl);
  return {
    enqueue: (queue, data) =>
      queue === SERIAL_QUEUE ? one() : client.lpush(listOf(queue), JSON.stringify(data)),
    enqueueBatch() {
      throw new Error('floor (Redis): no bulk floor');
    },
    close: async () => client.disconnect(),
  };
}

export async function worker({ redisUrl }, { queue, onJob }) {
  const blocking = new IORedis(redisUrl, { maxRetriesPerRequest: null });
  const { client, one } = await connect(redisUrl);
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      let popped;
      try {
        popped = await blocking.blpop(listOf(queue), 0);
      } catch (error) {
        if (stopping) return; // the disconnect below ends the blocked pop
        throw error;
      }
      await one();
      onJob(JSON.parse(popped[1]));
    }
  })();
  return {
    async stop() {
      stopping = true;
      blocking.disconnect();
      await loop;
      client.disconnect();
    },
  };
}

/** Nothing is ever outstanding: no drain runs. */
export async function outstanding() {
  return 0;
}
