import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../declare/job';
import { task } from '../declare/task';
import type { JobDriver } from '../driver/job-driver';
import { claimOf } from '../driver/job-row';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { JobsModule } from './jobs.module';
import { JobsService } from './jobs.service';

const START = Date.UTC(2026, 0, 1, 8, 0);
const QUEUE = 'jobs-service-operator';

const mail = job({
  name: 'jobs-service-operator-spec.mail',
  input: t.object({ to: t.string }),
  idempotencyKey: ({ to }) => to,
  tenant: 'none',
  queue: QUEUE,
  retry: { attempts: 1 },
});

const weekly = task({
  name: 'jobs-service-operator-spec.weekly',
  cron: '0 6 * * 1',
  tz: 'UTC',
  enqueue: () => [[mail, { to: 'weekly@example.test' }]],
});

/** The members of `JobsService` its first spec does not reach: dead letters, the bulk forms, resumes, workers. */
describe('JobsService: dead letters, bulk forms, resumes and workers', () => {
  let app: TestingModule;
  let service: JobsService;
  let driver: JobDriver;
  let clock: FrozenClock;

  beforeEach(async () => {
    clock = frozenClock(START);
    driver = memoryJobDriver({ clock });
    app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({ driver, clock, roles: ['web'], retention: false }),
        JobsModule.forFeature({ jobs: [{ mail }], tasks: [{ weekly }] }),
      ],
    }).compile();
    await app.init();
    service = app.get(JobsService);
  });
  afterEach(() => app.close());

  /** Enqueues `to` through the service, and dead-letters it with one claim (no worker runs in this app). */
  async function deadLetter(...to: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const address of to) ids.push((await service.enqueue(mail, { to: address })).id);
    const claimed = await driver.claim({
      workerId: 'w',
      slots: [{ queue: QUEUE, limit: to.length }],
      visibilityTimeoutMs: 30_000,
    });
    for (const row of claimed) {
      await driver.nack(row.id, { ...claimOf(row), kind: 'dead', error: 'X_SMTP: refused' });
    }
    return ids;
  }

  it('inspectDeadLetters lists the dead rows; previewBulk changes nothing; bulkJobs requeues them', async () => {
    const ids = await deadLetter('a@example.test', 'b@example.test');
    await service.enqueue(mail, { to: 'live@example.test' });
    const dead = await service.inspectDeadLetters();
    expect(dead.jobs.map((j) => j.id).sort()).toEqual([...ids].sort());
    expect(dead.jobs[0]).toMatchObject({ state: 'dead', lastError: 'X_SMTP: refused' });

    const preview = await service.previewBulk('requeue', { state: 'dead', queue: QUEUE });
    expect(preview).toMatchObject({ action: 'requeue', matched: 2, more: false });
    expect((await service.inspectDeadLetters()).jobs).toHaveLength(2);

    expect(await service.bulkJobs('requeue', { state: 'dead', queue: QUEUE })).toMatchObject({
      action: 'requeue',
      affected: 2,
      remaining: 0,
    });
    expect((await service.inspectDeadLetters()).jobs).toEqual([]);
    expect((await service.inspectQueues())[0]).toMatchObject({ queue: QUEUE, ready: 3, dead: 0 });
  });

  it('promoteJob makes a delayed job due now', async () => {
    const { id } = await service.enqueue(mail, { to: 'later@example.test' }, { delay: 60_000 });
    expect((await driver.get(id))?.state).toBe('delayed');
    expect(await service.promoteJob(id)).toMatchObject({ id, state: 'ready' });
  });

  it('resumeQueue and resumeTask undo their pauses', async () => {
    await service.pauseQueue(QUEUE);
    expect(await service.resumeQueue(QUEUE)).toEqual({ queue: QUEUE, paused: false });
    expect(await driver.introspect!.pausedQueues()).toEqual([]);

    await service.pauseTask(weekly.name);
    expect(await service.resumeTask(weekly.name)).toMatchObject({ paused: false });
    expect(await service.inspectTasks()).toEqual([
      expect.objectContaining({ name: weekly.name, paused: false }),
    ]);
  });

  it('inspectWorkers lists a worker after its beat', async () => {
    expect(await service.inspectWorkers()).toEqual([]);
    await driver.workerRegistry!.beat(
      {
        id: 'worker-1',
        host: 'h',
        pid: 1,
        startedAt: clock.now(),
        slots: { [QUEUE]: 2 },
        inFlight: [],
      },
      30_000,
    );
    expect(await service.inspectWorkers()).toEqual([
      expect.objectContaining({ id: 'worker-1', slots: { [QUEUE]: 2 } }),
    ]);
  });
});
