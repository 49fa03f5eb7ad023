import { job, t, type LimitConfig } from '@ultimat3/jobs';
import { frozenClock, runJobs, type JobsHarness } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { enqueueRequest } from '../../jobs/test/requests';
import { countingJob, io, testRedisSpec, wakeSlots } from '../test/redis-spec';
import { redisBackend } from './redis-backend';
import { redisJobDriver } from './redis-driver';
import { redisKeyPrefix } from './redis-keys';

const QUEUE = 'hand-off-bounds-q';
const NAME = 'redis-hand-off-bounds.noop';
const GATED = 'redis-hand-off-bounds.gated';
const VT = 30_000;

const file = testRedisSpec();
const { job: counted, ran, request } = countingJob(NAME, QUEUE);
/** The gated runs waiting; `openGates` lets every one of them end, and any run after it end at once. */
const gates: (() => void)[] = [];
let passing = false;
const openGates = (): void => {
  passing = true;
  for (const open of gates.splice(0)) open();
};
const gated = job({
  name: GATED,
  queue: QUEUE,
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `g:${n}`,
  tenant: 'none',
  run: () => (passing ? Promise.resolve() : new Promise<void>((resolve) => gates.push(resolve))),
});

/** The registration text of `wid` for the queue (see `LUA_HAND_OFF`), or null. */
const registration = (prefix: string, wid: string): Promise<string | null> =>
  file.redis.client.get(
    `${redisKeyPrefix(prefix)}q:${Buffer.byteLength(QUEUE)}:${QUEUE}:ho:${wid}`,
  );

describe('the Redis hand-off, bounded by what the worker can start', () => {
  beforeEach(() => (passing = false));
  afterEach(openGates);
  const open = wakeSlots();

  /** A worker with the wake and the hand-off, once it is registered. */
  async function startWorker(
    prefix: string,
    concurrency: number,
    limits?: LimitConfig,
  ): Promise<JobsHarness> {
    const clock = frozenClock();
    const backend = await redisBackend({ client: file.redis.client, prefix, clock });
    const h = await runJobs({
      jobs: [counted, gated],
      driver: backend.driver,
      clock,
      installFacade: false,
      visibilityTimeoutMs: VT,
      concurrency,
      ...(limits === undefined ? {} : { limits }),
    });
    open.h = h;
    open.backend = backend;
    open.stopWake = backend.startWake(h.worker).stop;
    open.other = redisJobDriver({ client: file.redis.client, prefix, clock });
    await until(() => h.worker.stats().wakeLive);
    await until(async () => (await registration(prefix, h.worker.id)) !== null);
    return h;
  }

  it('a row handed on a registration older than a claim of its own that filled the slot goes straight back', async () => {
    const prefix = file.redis.prefix();
    const h = await startWorker(prefix, 1);
    const other = open.other!;
    const clock = h.clock;
    // a row the worker claims itself while registered: held from the hand-off by a pause, announced on resume
    await other.introspect!.pauseQueue(QUEUE);
    const first = await other.enqueue(
      enqueueRequest({
        name: GATED,
        queue: QUEUE,
        input: { n: 1 },
        idempotencyKey: 'g:1',
        runAt: clock.now(),
      }),
    );
    await other.introspect!.resumeQueue(QUEUE);
    await until(async () => (await other.get(first.id))?.state === 'running');
    expect((await other.get(first.id))?.workerId).toBe(h.worker.id);
    await until(() => h.worker.stats().inFlight === 1);
    // its one slot is busy, but the registration sent before that claim still offers it
    expect(await registration(prefix, h.worker.id)).toMatch(/^1\|/);
    const second = await other.enqueue(request(2, clock.now()));
    // handed: the registration's one slot went with it (the row may be back already, so its state tells nothing)
    expect(await registration(prefix, h.worker.id)).toBeNull();
    // the worker takes no row it cannot start: handed back uncounted, first in line again
    await until(async () => (await other.get(second.id))?.state === 'ready');
    expect(await other.get(second.id)).toMatchObject({ attempt: 0 });
    expect(h.worker.stats().inFlight).toBe(1);
    expect(ran).not.toContain(2);
    openGates();
    await until(async () => (await other.get(second.id))?.state === 'done', 10_000);
    expect(ran.filter((n) => n === 2)).toEqual([2]);
    expect(await other.get(first.id)).toMatchObject({ state: 'done', attempt: 1 });
  });

  it('a worker with per-process caps registers the rows its caps let start, and is handed no more', async () => {
    const prefix = file.redis.prefix();
    const h = await startWorker(prefix, 4, { perQueue: { [QUEUE]: 2 } });
    const other = open.other!;
    expect(await registration(prefix, h.worker.id)).toMatch(/^2\|/);
    const rows = [];
    for (let n = 10; n < 13; n++)
      rows.push(
        await other.enqueue(
          enqueueRequest({
            name: GATED,
            queue: QUEUE,
            input: { n },
            idempotencyKey: `g:${n}`,
            runAt: h.clock.now(),
          }),
        ),
      );
    // two handed inside the enqueues (the cap's room: a hand-off's token is 'h'-led), the third left to a claim
    const tokens = await Promise.all(
      rows.map((r) => file.redis.client.hget(`${redisKeyPrefix(prefix)}j:${r.id}`, 'c')),
    );
    expect(tokens.map((c) => c?.startsWith('h') === true)).toEqual([true, true, false]);
    await until(() => h.worker.stats().inFlight === 2);
    await io();
    expect(h.worker.stats().inFlight).toBe(2);
    openGates();
  });

  it('shares a global cap between its queues and registers nothing while the cap is full', async () => {
    const prefix = file.redis.prefix();
    const h = await startWorker(prefix, 3, { global: 1 });
    const other = open.other!;
    expect(await registration(prefix, h.worker.id)).toMatch(/^1\|/);
    const row = await other.enqueue(
      enqueueRequest({
        name: GATED,
        queue: QUEUE,
        input: { n: 20 },
        idempotencyKey: 'g:20',
        runAt: h.clock.now(),
      }),
    );
    expect((await other.get(row.id))?.state).toBe('running');
    await until(() => h.worker.stats().inFlight === 1);
    // the last place went: no registration while the run holds it
    await until(async () => (await registration(prefix, h.worker.id)) === null);
    const next = await other.enqueue(request(21, h.clock.now()));
    expect((await other.get(next.id))?.state).toBe('ready');
    openGates();
    await until(async () => (await other.get(next.id))?.state === 'done', 10_000);
  });
});
