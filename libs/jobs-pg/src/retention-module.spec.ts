import { Test } from '@nestjs/testing';
import {
  claimOf,
  JobRegistry,
  JobsModule,
  memoryJobDriver,
  recordingLogger,
  RETENTION_JOB,
  RETENTION_QUEUE,
  RETENTION_TASK,
  TaskRegistry,
  uuidv7,
  type JobDriver,
  type JobsModuleOptions,
} from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';
import { enqueueRequest } from '../../jobs/test/requests';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const VT = 90 * DAY;
/** 2026-01-05 00:00 UTC: five days before the sweep the scenario waits for. */
const START = Date.UTC(2026, 0, 5);

/** Rows reached through the driver's own operations, each on a queue of its own so a claim takes exactly it. */
function seeder(driver: JobDriver, clock: FrozenClock) {
  let n = 0;
  const enqueue = async (): Promise<{ id: string; queue: string }> => {
    const id = uuidv7(clock.now());
    const queue = `retention-seed-${n++}`;
    await driver.enqueue(
      enqueueRequest({
        id,
        name: 'retention.seed',
        queue,
        input: {},
        idempotencyKey: id,
        runAt: clock.now(),
      }),
    );
    return { id, queue };
  };
  const running = async () => {
    const { id, queue } = await enqueue();
    const [claimed] = await driver.claim({
      workerId: 'seed',
      visibilityTimeoutMs: VT,
      slots: [{ queue, limit: 1 }],
    });
    if (claimed?.id !== id) throw new Error('seed: claimed another row');
    return claimed;
  };
  return {
    live: async () => (await enqueue()).id,
    done: async () => {
      const row = await running();
      await driver.ack(row.id, claimOf(row));
      return row.id;
    },
    dead: async () => {
      const row = await running();
      await driver.nack(row.id, { ...claimOf(row), kind: 'dead', error: 'seeded' });
      return row.id;
    },
  };
}

/** A driver on the scenario's clock, and how to let its I/O land between clock steps. */
interface Under {
  readonly driver: JobDriver;
  readonly pause: () => Promise<void>;
}

const boot = async (options: JobsModuleOptions) => {
  const app = await Test.createTestingModule({ imports: [JobsModule.forRoot(options)] }).compile();
  await app.init();
  return app;
};

/**
 * The module's own sweep end to end: rows finished and dead at chosen ages, then an app with the worker and scheduler
 * roles booted at 00:22 UTC with `retention: { finishedMs: 1 day, deadMs: 3 days }`. Nothing fires before 00:23; then
 * the leader fires `jobs.retention`, a worker runs the sweep, and exactly the rows past their age are gone.
 */
async function firesAndPurges(clock: FrozenClock, { driver, pause }: Under): Promise<void> {
  const seed = seeder(driver, clock);
  const deadOld = await seed.dead(); // day -5: past deadMs
  await clock.advance(3 * DAY);
  const doneOld = await seed.done(); // day -2: past finishedMs
  const deadYoung = await seed.dead(); // day -2: within deadMs
  await clock.advance(2 * DAY - HOUR);
  const doneYoung = await seed.done(); // an hour old at the sweep
  const live = await seed.live();
  await clock.advance(HOUR + 22 * 60_000); // 00:22 UTC

  const logger = recordingLogger();
  const app = await boot({
    driver,
    clock,
    logger,
    roles: ['worker', 'scheduler'],
    worker: { pollIntervalMs: 200, idlePollMaxMs: 1_000 },
    retention: { finishedMs: DAY, deadMs: 3 * DAY },
  });
  try {
    expect(app.get(JobRegistry).get(RETENTION_JOB)?.handle.queue).toBe(RETENTION_QUEUE);
    const sweeps = async () =>
      (await driver.introspect?.list({ name: RETENTION_JOB, limit: 10 })) ?? [];
    await clock.advance(30_000);
    await pause();
    expect(await sweeps()).toEqual([]);
    for (let step = 0; step < 600 && !(await sweeps()).some((r) => r.state === 'done'); step++) {
      await clock.advance(1_000);
      await pause();
    }
    const [sweep, ...more] = await sweeps();
    expect(more).toEqual([]);
    expect(sweep).toMatchObject({ state: 'done', queue: RETENTION_QUEUE, attempt: 1 });
    expect(sweep?.createdAt).toBeGreaterThanOrEqual(START + 5 * DAY + 23 * 60_000);
    expect(await driver.get(deadOld)).toBeUndefined();
    expect(await driver.get(doneOld)).toBeUndefined();
    expect((await driver.get(deadYoung))?.state).toBe('dead');
    expect((await driver.get(doneYoung))?.state).toBe('done');
    expect((await driver.get(live))?.state).toBe('ready');
    expect(logger.named('jobs.scheduler.no-role')).toEqual([]);
  } finally {
    await app.close();
  }
}

/** `retention: false`: neither the sweep nor its task is registered, and nothing lands on its queue past 00:23. */
async function registersNothingWhenOff(clock: FrozenClock, { driver, pause }: Under) {
  const app = await boot({
    driver,
    clock,
    logger: recordingLogger(),
    roles: ['worker', 'scheduler'],
    retention: false,
  });
  try {
    expect(app.get(JobRegistry).get(RETENTION_JOB)).toBeUndefined();
    expect(app.get(TaskRegistry).get(RETENTION_TASK)).toBeUndefined();
    for (let step = 0; step < 40; step++) {
      await clock.advance(60_000);
      await pause();
    }
    expect(await driver.introspect?.list({ queue: RETENTION_QUEUE, limit: 10 })).toEqual([]);
  } finally {
    await app.close();
  }
}

describe('JobsModule retention on the memory driver', () => {
  const under = (clock: FrozenClock): Under => ({
    driver: memoryJobDriver({ clock }),
    pause: () => clock.flush(),
  });

  it('fires on the scheduler leader and purges exactly the rows past their retention', async () => {
    const clock = frozenClock(START);
    await firesAndPurges(clock, under(clock));
  });

  it('retention: false registers nothing', async () => {
    const clock = frozenClock(START);
    await registersNothingWhenOff(clock, under(clock));
  });

  it('is registered in a process without the scheduler role, and in no no-role notice', async () => {
    const clock = frozenClock(START);
    const logger = recordingLogger();
    const app = await boot({ driver: 'memory', clock, logger, roles: ['web', 'worker'] });
    try {
      expect(app.get(JobRegistry).get(RETENTION_JOB)?.body).toBeDefined();
      expect(app.get(TaskRegistry).get(RETENTION_TASK)).toBeDefined();
      expect(logger.named('jobs.scheduler.no-role')).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('refuses a retention that is not a positive duration with X_INVARIANT at boot', async () => {
    await expect(
      boot({ driver: 'memory', roles: ['web'], retention: { finishedMs: 0 } }),
    ).rejects.toMatchObject({ code: 'X_INVARIANT' });
  });
});

describe('JobsModule retention on PostgreSQL', () => {
  const db = pgJobsSpec();
  beforeEach(async () => {
    await db.pool.query(
      'truncate x_jobs, x_job_steps, x_job_leases, x_scheduler_state, x_scheduler_leader cascade',
    );
  });
  const under = (clock: FrozenClock): Under => ({
    driver: postgresJobDriver({ executor: db.executor, clock }),
    // a real database answers on the event loop: let a statement land between clock steps
    pause: () => new Promise((resolve) => setTimeout(resolve, 5)),
  });

  it('fires on the scheduler leader and purges exactly the rows past their retention', async () => {
    const clock = frozenClock(START);
    await firesAndPurges(clock, under(clock));
  }, 60_000);

  it('retention: false registers nothing', async () => {
    const clock = frozenClock(START);
    await registersNothingWhenOff(clock, under(clock));
  }, 60_000);
});
