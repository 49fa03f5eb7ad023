import { driverBackend } from '../driver/backend';
import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../declare/job';
import type { TaskEntry } from '../declare/task';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { memoryLeaseLeader } from '../scheduler/memory-lease-leader';
import { memorySchedulerState } from '../scheduler/memory-scheduler-state';
import type { SchedulerState } from '../scheduler/scheduler-state';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { recordingLogger, type JobsLogger, type RecordingLogger } from '../util/logger';
import { Task } from './decorators/task.decorator';
import { JobsModule } from './jobs.module';
import type { JobsModuleOptions } from './jobs.options';
import { SchedulerHost } from './scheduler.host';
import { closeRecordingDriver } from '../../test/close-recording-driver';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);
const FIRST = START + 5 * MINUTE;

const report = job({
  name: 'scheduler-host-spec.report',
  input: t.object({ occurrenceMs: t.number.int(), region: t.string }),
  idempotencyKey: ({ occurrenceMs, region }) => `report:${region}:${occurrenceMs}`,
  tenant: 'none',
  run: () => undefined,
});

/** An injected service the task method reads, so the test sees the method ran with its provider as `this`. */
@Injectable()
class Regions {
  readonly list = ['eu', 'us'];
}

@Injectable()
class ReportTasks {
  constructor(private readonly regions: Regions) {}

  @Task({ name: 'scheduler-host-spec.reports', cron: '*/5 * * * *', tz: 'UTC' })
  reports(occurrenceMs: number): readonly TaskEntry[] {
    return this.regions.list.map((region) => [report, { occurrenceMs, region }] as const);
  }
}

const TASK = 'scheduler-host-spec.reports';
const keyOf = (occurrenceMs: number, index: number, region: string): string =>
  `task:${TASK}:${occurrenceMs}:${index}:report:${region}:${occurrenceMs}`;

interface Booted {
  readonly app: TestingModule;
  readonly clock: FrozenClock;
  readonly driver: JobDriver;
  readonly logger: RecordingLogger;
}

const open: TestingModule[] = [];

async function boot(
  options: Partial<JobsModuleOptions> = {},
  shared: { clock?: FrozenClock; driver?: JobDriver } = {},
): Promise<Booted> {
  const clock = shared.clock ?? frozenClock(START);
  const driver = shared.driver ?? memoryJobDriver({ clock });
  const logger = recordingLogger();
  const app = await Test.createTestingModule({
    imports: [
      // the module's own retention task is off: these tests count the app's tasks only
      JobsModule.forRoot({
        driver,
        clock,
        logger,
        roles: ['scheduler'],
        retention: false,
        ...options,
      }),
    ],
    providers: [Regions, ReportTasks],
  }).compile();
  open.push(app);
  await app.init();
  return { app, clock, driver, logger };
}

const keys = async (driver: JobDriver): Promise<string[]> =>
  ((await driver.introspect?.list()) ?? []).map((row) => row.idempotencyKey).sort();

afterEach(async () => {
  for (const app of open.splice(0).reverse()) await app.close();
});

describe('SchedulerHost', () => {
  it('fires a @Task method on its cron as the clock advances, keyed to the occurrence', async () => {
    const booted = await boot();
    expect(booted.app.get(SchedulerHost).scheduler?.status).toBe('running');

    await booted.clock.advance(5 * MINUTE - 1);
    expect(await keys(booted.driver)).toEqual([]);
    await booted.clock.advance(1);
    expect(await keys(booted.driver)).toEqual([keyOf(FIRST, 0, 'eu'), keyOf(FIRST, 1, 'us')]);

    await booted.clock.advance(5 * MINUTE);
    const second = FIRST + 5 * MINUTE;
    expect(await keys(booted.driver)).toEqual(
      [
        keyOf(FIRST, 0, 'eu'),
        keyOf(FIRST, 1, 'us'),
        keyOf(second, 0, 'eu'),
        keyOf(second, 1, 'us'),
      ].sort(),
    );
  });

  it('creates nothing on a second fire of one occurrence: two leaders, one row per entry', async () => {
    // Two schedulers that both lead, each with its own watermark — a rolling update with no election.
    const first = await boot({ scheduler: { leader: memoryLeaseLeader() } });
    const second = await boot(
      { scheduler: { leader: memoryLeaseLeader() } },
      { clock: first.clock, driver: first.driver },
    );

    await first.clock.advance(5 * MINUTE);

    const fired = (b: Booted): unknown[] =>
      b.logger.named('jobs.scheduler.task.fired').map((e) => e.fields['jobs']);
    expect(fired(first)).toHaveLength(1);
    expect(fired(second)).toEqual(fired(first));
    expect(await keys(first.driver)).toEqual([keyOf(FIRST, 0, 'eu'), keyOf(FIRST, 1, 'us')]);
  });

  it('stops on app.close() before the worker and before the driver closes', async () => {
    const order: string[] = [];
    const logger: JobsLogger = { log: (_level, event) => void order.push(event) };
    const clock = frozenClock(START);
    const driver = closeRecordingDriver(clock, order);
    const app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({ driver, clock, logger, roles: ['worker', 'scheduler'] }),
        JobsModule.forFeature({ jobs: [{ report }] }),
      ],
      providers: [Regions, ReportTasks],
    }).compile();
    await app.init();
    await clock.advance(5 * MINUTE);

    await app.close('SIGTERM');

    const at = (event: string): number => order.indexOf(event);
    // every role stops taking work first (the scheduler's stop is synchronous up to its round), then each is waited
    // for in the same order — scheduler, worker — and the driver closes last
    expect(at('jobs.scheduler.stopped')).toBeGreaterThan(-1);
    expect(at('jobs.worker.draining')).toBeGreaterThan(at('jobs.module.stopping'));
    expect(at('jobs.worker.stopped')).toBeGreaterThan(at('jobs.scheduler.stopped'));
    expect(at('driver.close')).toBeGreaterThan(at('jobs.worker.stopped'));
    expect(app.get(SchedulerHost).scheduler).toBeUndefined();
  });

  it('finishes the round in flight at close, up to shutdown.deadlineMs, keeping the lease past it', async () => {
    const clock = frozenClock(START);
    const driver = memoryJobDriver({ clock });
    const inner = memorySchedulerState({ driver, clock });
    let firing = false;
    const stuck: SchedulerState = {
      ...inner,
      fire: () => {
        firing = true;
        return new Promise(() => undefined);
      },
    };
    const booted = await boot(
      { scheduler: { state: stuck }, shutdown: { deadlineMs: 2_000 } },
      { clock, driver },
    );
    await clock.advance(5 * MINUTE);
    expect(firing).toBe(true);

    const closing = booted.app.close();
    open.splice(open.indexOf(booted.app), 1);
    await clock.advance(2_000);
    await closing;

    expect(booted.logger.named('jobs.scheduler.drain-abandoned')).toHaveLength(1);
    expect(await driver.leases.holders('x:scheduler')).toHaveLength(1);
  });

  it('uses the state a backend declares, and its lease store as the election', async () => {
    const clock = frozenClock(START);
    const memory = memoryJobDriver({ clock });
    const state = memorySchedulerState({ driver: memory, clock });
    const plain = driverBackend(memory);
    const backend = {
      ...plain,
      capabilities: { ...plain.capabilities, schedulerState: true },
      schedulerState: state,
    };
    const booted = await boot({ driver: undefined, backend }, { clock, driver: memory });

    await clock.advance(5 * MINUTE);

    expect(await state.taskFires()).toMatchObject([{ task: TASK, occurrenceMs: FIRST }]);
    const holderId = booted.app.get(SchedulerHost).scheduler?.holderId;
    expect(await memory.leases.holders('x:scheduler')).toMatchObject([{ holder: holderId }]);
    expect(booted.logger.named('jobs.scheduler.memory-defaults')).toEqual([]);
  });

  it('warns when a durable driver offers no state and no lease store, and the scheduler falls back to memory', async () => {
    const clock = frozenClock(START);
    const memory = memoryJobDriver({ clock });
    const driver: JobDriver = { ...memory, kind: 'durable-without-extras', leases: undefined };
    const booted = await boot({}, { clock, driver });
    expect(booted.logger.named('jobs.scheduler.memory-defaults')).toMatchObject([
      {
        level: 'warn',
        fields: {
          driver: 'durable-without-extras',
          leader: 'always the leader',
          state: 'in memory',
        },
      },
    ]);
  });

  it('runs no scheduler without the scheduler role', async () => {
    const booted = await boot({ roles: ['web', 'worker'] });
    expect(booted.app.get(SchedulerHost).scheduler).toBeUndefined();
    await booted.clock.advance(10 * MINUTE);
    expect(await keys(booted.driver)).toEqual([]);
    expect(booted.logger.named('jobs.scheduler.started')).toEqual([]);
  });

  it('boots the scheduler role with no task registered, says so, and schedules nothing', async () => {
    const clock = frozenClock(START);
    const logger = recordingLogger();
    const app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: 'memory',
          clock,
          logger,
          roles: ['scheduler'],
          retention: false,
        }),
      ],
    }).compile();
    open.push(app);
    await app.init();
    expect(logger.named('jobs.scheduler.nothing-to-schedule')).toHaveLength(1);
    expect(app.get(SchedulerHost).scheduler).toBeUndefined();
    expect(clock.pending()).toBe(0);
  });
});
