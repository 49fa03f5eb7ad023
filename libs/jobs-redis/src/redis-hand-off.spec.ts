import { job, t, type ClaimedJob, type HandOffOffer, type WakeHandOff } from '@ultimat3/jobs';
import { frozenClock, runJobs, type FrozenClock, type JobsHarness } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { enqueueRequest } from '../../jobs/test/requests';
import { countingJob, io, testRedisSpec, wakeSlots } from '../test/redis-spec';
import { redisBackend } from './redis-backend';
import { redisContext } from './redis-context';
import { redisJobDriver, type RedisJobDriver } from './redis-driver';
import { handedRows } from './redis-hand-off-reply';
import { handOffConnectionName, startHandOff } from './redis-hand-off';
import { redisKeyPrefix } from './redis-keys';

const QUEUE = 'hand-off-q';
const NAME = 'redis-hand-off.noop';
const VT = 30_000;

const file = testRedisSpec();
const { job: handedJob, ran, request } = countingJob(NAME, QUEUE);
/** A job of the same queue whose body waits until the test opens its gate. */
const GATED = 'redis-hand-off.gated';
let openGate: () => void = () => undefined;
const gatedJob = job({
  name: GATED,
  queue: QUEUE,
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `g:${n}`,
  tenant: 'none',
  run: () => new Promise<void>((resolve) => (openGate = resolve)),
});

/** The keys of one deployment's hand-off (see `LUA_HAND_OFF`). */
function keysOf(prefix: string) {
  const p = redisKeyPrefix(prefix);
  const q = `${p}q:${Buffer.byteLength(QUEUE)}:${QUEUE}`;
  return {
    set: `${q}:ho`,
    registration: (wid: string) => `${q}:ho:${wid}`,
    list: (wid: string) => `${p}hl:${wid}`,
  };
}

/** Registers `wid` as a worker that never pops (a process that died right after registering). */
async function registerGhost(prefix: string, wid: string, free: number): Promise<void> {
  const k = keysOf(prefix);
  await file.redis.client.set(
    k.registration(wid),
    `${free}|${VT}|\u0000${NAME}\u0000`,
    'PX',
    60_000,
  );
  await file.redis.client.zadd(k.set, 0, wid);
}

/** The rows handed to `wid` and still on its list, read as its pop would read them. */
async function handedTo(prefix: string, wid: string): Promise<ClaimedJob[]> {
  const ctx = redisContext(file.redis.client, redisKeyPrefix(prefix));
  const entries = await file.redis.client.lrange(keysOf(prefix).list(wid), 0, -1);
  return (await handedRows(ctx, wid, entries)).rows;
}

describe('the Redis hand-off', () => {
  const open = wakeSlots();

  /** A worker process on `prefix` with the wake and the hand-off started, registered once idle. */
  async function startWorker(
    prefix: string,
    clock: FrozenClock,
    concurrency = 2,
  ): Promise<JobsHarness> {
    const backend = await redisBackend({ client: file.redis.client, prefix, clock });
    const h = await runJobs({
      jobs: [handedJob, gatedJob],
      driver: backend.driver,
      clock,
      installFacade: false,
      visibilityTimeoutMs: VT,
      concurrency,
    });
    const stopWake = backend.startWake(h.worker).stop;
    open.h = h;
    open.backend = backend;
    open.stopWake = stopWake;
    const worker = h.worker;
    await until(() => worker.stats().wakeLive);
    await until(
      async () => (await file.redis.client.exists(keysOf(prefix).registration(worker.id))) === 1,
    );
    return h;
  }

  it("claims another process's row due now for the idle worker inside the enqueue, unannounced, and the worker runs it once", async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    const other = redisJobDriver({ client: file.redis.client, prefix, clock });
    open.other = other;
    const h = await startWorker(prefix, clock);
    const announced: string[] = [];
    const sub = file.redis.client.duplicate();
    sub.on('smessage', (_channel: string, message: string) => announced.push(message));
    await sub.ssubscribe(`${redisKeyPrefix(prefix)}wake`);
    try {
      const gated = await other.enqueue(
        enqueueRequest({
          name: GATED,
          queue: QUEUE,
          input: { n: 1 },
          idempotencyKey: 'g:1',
          runAt: clock.now(),
        }),
      );
      // claimed by the enqueue itself for the idle worker: running under it, leased from the enqueue's now
      expect(await other.get(gated.id)).toMatchObject({
        state: 'running',
        workerId: h.worker.id,
        attempt: 1,
        leaseExpiresAt: clock.now() + VT,
      });
      await until(() => h.worker.stats().inFlight === 1);
      openGate();
      await until(async () => (await other.get(gated.id))?.state === 'done');
      const plain = await other.enqueue(request(1, clock.now()));
      await until(async () => (await other.get(plain.id))?.state === 'done');
      expect(ran.filter((n) => n === 1)).toEqual([1]);
      await io();
      expect(announced.filter((m) => m === QUEUE)).toEqual([]);
      expect((await other.stats()).find((s) => s.queue === QUEUE)).toMatchObject({
        ready: 0,
        running: 0,
        done: 2,
      });
    } finally {
      sub.disconnect();
    }
  });

  it('hands a worker no more rows than its free slots, and nothing past a row already waiting', async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    const other = redisJobDriver({ client: file.redis.client, prefix, clock });
    open.other = other;
    await registerGhost(prefix, 'ghost', 1);
    const first = await other.enqueue(request(11, clock.now()));
    const second = await other.enqueue(request(12, clock.now()));
    const third = await other.enqueue(request(13, clock.now()));
    expect(await other.get(first!.id)).toMatchObject({ state: 'running', workerId: 'ghost' });
    // its one free slot went: the registration is gone, the next rows wait for a claim
    expect(await file.redis.client.zscore(keysOf(prefix).set, 'ghost')).toBeNull();
    expect((await other.get(second!.id))?.state).toBe('ready');
    // a second ghost with room: the third row would be handed only if nothing waited ahead of it — one does
    await registerGhost(prefix, 'ghost-2', 5);
    const fourth = await other.enqueue(request(14, clock.now()));
    expect((await other.get(third!.id))?.state).toBe('ready');
    expect((await other.get(fourth!.id))?.state).toBe('ready');
    expect(await handedTo(prefix, 'ghost-2')).toEqual([]);
    // a delayed row and a paused queue are never handed
    const [claimed] = await other
      .claim({ workerId: 'w', visibilityTimeoutMs: VT, slots: [{ queue: QUEUE, limit: 10 }] })
      .then((rows) => [rows.length]);
    expect(claimed).toBe(3);
    const later = await other.enqueue(request(15, clock.now() + 1_000));
    expect((await other.get(later!.id))?.state).toBe('delayed');
    await other.introspect!.pauseQueue(QUEUE);
    const paused = await other.enqueue(request(16, clock.now()));
    expect((await other.get(paused!.id))?.state).toBe('ready');
    expect(await handedTo(prefix, 'ghost-2')).toEqual([]);
  });

  it("a dead worker's handed row is fenced on its token and rescued when its lease lapses", async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    const other: RedisJobDriver = redisJobDriver({ client: file.redis.client, prefix, clock });
    open.other = other;
    await registerGhost(prefix, 'dead', 3);
    const enqueued = await other.enqueue(request(21, clock.now()));
    const [handed] = await handedTo(prefix, 'dead');
    expect(handed).toMatchObject({
      id: enqueued!.id,
      workerId: 'dead',
      attempt: 1,
      state: 'running',
    });
    const ref = { workerId: 'dead', claim: handed!.claim };
    // the handed token holds the row as a claim's does; a stale one is refused
    expect(await other.heartbeat(handed!.id, ref, VT)).toBe(true);
    const step = {
      name: 's',
      output: 1,
      attempt: 1,
      startedAt: clock.now(),
      completedAt: clock.now(),
    };
    expect(await other.steps.save(handed!.id, ref, step)).toBe(true);
    expect(await other.steps.save(handed!.id, { ...ref, claim: 'stale' }, step)).toBe(false);
    expect(await other.ack(handed!.id, { workerId: 'dead', claim: 'stale' })).toBe(false);
    // never popped: the lease lapses and a rescue makes it claimable again, as any claimed row's
    await clock.advance(VT + 1);
    await other.rescue({ slots: [{ queue: QUEUE }], visibilityTimeoutMs: VT });
    const [again] = await other.claim({
      workerId: 'alive',
      visibilityTimeoutMs: VT,
      slots: [{ queue: QUEUE, limit: 1 }],
    });
    expect(again).toMatchObject({ id: enqueued!.id, attempt: 2, workerId: 'alive' });
    expect(await other.ack(handed!.id, ref)).toBe(false);
    expect(await other.ack(again!.id, { workerId: 'alive', claim: again!.claim })).toBe(true);
  });

  it('a stop deregisters first and hands back what was handed and not popped', async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    const other = redisJobDriver({ client: file.redis.client, prefix, clock });
    open.other = other;
    const taken: ClaimedJob[] = [];
    const offers: HandOffOffer[] = [{ queue: QUEUE, free: 2, names: [NAME] }];
    const target: WakeHandOff = {
      workerId: 'stopping-worker',
      visibilityTimeoutMs: VT,
      offers: () => offers,
      takeClaimed: (rows) => taken.push(...rows),
      onIdle: () => () => undefined,
    };
    const ctx = redisContext(file.redis.client, redisKeyPrefix(prefix), clock);
    const handOff = startHandOff(ctx, target);
    const k = keysOf(prefix);
    await until(
      async () => (await file.redis.client.exists(k.registration('stopping-worker'))) === 1,
    );
    // the pop's connection drops: the worker stays registered, and what is handed now waits on its list
    const clients = String(await file.redis.client.call('CLIENT', 'LIST'));
    const line = clients
      .split('\n')
      .find((l) => l.includes(`name=${handOffConnectionName('stopping-worker')} `));
    await file.redis.client.call('CLIENT', 'KILL', 'ID', /id=(\d+)/.exec(line!)![1]!);
    await io();
    const enqueued = await other.enqueue(request(31, clock.now()));
    expect((await other.get(enqueued!.id))?.state).toBe('running');
    await handOff.stop();
    expect(taken).toEqual([]);
    // handed back uncounted, waiting for the next claim; no registration left
    expect(await other.get(enqueued!.id)).toMatchObject({ state: 'ready', attempt: 0 });
    expect(
      await file.redis.client.exists(k.registration('stopping-worker'), k.list('stopping-worker')),
    ).toBe(0);
    expect(await file.redis.client.zscore(k.set, 'stopping-worker')).toBeNull();
    const next = await other.enqueue(request(32, clock.now()));
    expect((await other.get(next!.id))?.state).toBe('ready');
  });

  it('two workers and many rows: each row runs exactly once, handed or claimed', async () => {
    const prefix = file.redis.prefix();
    const clock = frozenClock();
    const other = redisJobDriver({ client: file.redis.client, prefix, clock });
    open.other = other;
    const first = await startWorker(prefix, clock, 3);
    const firstSlots = { ...open };
    await startWorker(prefix, clock, 3);
    const ids = new Set<number>();
    const jobIds: string[] = [];
    for (let n = 100; n < 250; n++) {
      ids.add(n);
      jobIds.push((await other.enqueue(request(n, clock.now()))).id);
      if (n % 10 === 0) await io();
    }
    await until(async () => {
      await first.advance(100);
      return [...ids].every((n) => ran.includes(n));
    }, 20_000);
    const runs = ran.filter((n) => ids.has(n));
    expect(runs.length).toBe(ids.size);
    expect(new Set(runs).size).toBe(ids.size);
    await until(
      async () => (await other.stats()).find((s) => s.queue === QUEUE)?.done === ids.size,
    );
    expect((await other.stats()).find((s) => s.queue === QUEUE)).toMatchObject({
      ready: 0,
      running: 0,
    });
    // the first row at least found both workers idle: handed (a hand-off's token is 'h'-led; an ack leaves it)
    const tokens = await Promise.all(
      jobIds.map((id) => file.redis.client.hget(`${redisKeyPrefix(prefix)}j:${id}`, 'c')),
    );
    expect(tokens.filter((c) => c?.startsWith('h')).length).toBeGreaterThan(0);
    await firstSlots.stopWake?.();
    await firstSlots.h?.close();
    await firstSlots.backend?.close();
  });
});
