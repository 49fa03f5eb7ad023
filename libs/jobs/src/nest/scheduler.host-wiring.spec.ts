import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../declare/job';
import { task } from '../declare/task';
import { driverBackend } from '../driver/backend';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import type { JobMetrics } from '../runtime/metrics';
import { memorySchedulerState } from '../scheduler/memory-scheduler-state';
import type { SchedulerState } from '../scheduler/scheduler-state';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { gate } from '../testing/test-kit';
import { recordingLogger, type RecordingLogger } from '../util/logger';
import { JobsModule } from './jobs.module';
import type { JobsModuleOptions } from './jobs.options';
import { JobsRuntime } from './jobs.runtime';

const MINUTE = 60_000;
const START = Date.UTC(2026, 0, 1);

const ran: number[] = [];
const tick = job({
  name: 'scheduler-host-wiring.tick',
  queue: 'ticks',
  input: t.object({ occurrenceMs: t.number.int() }),
  idempotencyKey: ({ occurrenceMs }) => `tick:${occurrenceMs}`,
  tenant: 'none',
  run: ({ input }) => {
    ran.push(input.occurrenceMs);
  },
});
const minutely = task({
  name: 'scheduler-host-wiring.minutely',
  cron: '* * * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [[tick, { occurrenceMs }]],
});

interface Booted {
  readonly app: TestingModule;
  readonly clock: FrozenClock;
  readonly logger: RecordingLogger;
  /** `jobs_enqueued_total` as the module's sink was told it, by queue. */
  readonly enqueued: Map<string, number>;
}

const open: TestingModule[] = [];

/** A module holding `roles` with the minutely task, a metrics sink registered before its bootstrap. */
async function boot(
  options: Partial<JobsModuleOptions>,
  clock: FrozenClock = frozenClock(START),
  driver: JobDriver = memoryJobDriver({ clock }),
): Promise<Booted> {
  const logger = recordingLogger();
  const app = await Test.createTestingModule({
    imports: [
      JobsModule.forRoot({
        driver,
        clock,
        logger,
        roles: ['scheduler'],
        retention: false,
        ...options,
      }),
      JobsModule.forFeature({ jobs: [{ tick }], tasks: [{ minutely }] }),
    ],
  }).compile();
  open.push(app);
  const enqueued = new Map<string, number>();
  const sink: JobMetrics = {
    jobsTotal: () => undefined,
    leaseLost: () => undefined,
    enqueued: (queue, rows) => enqueued.set(queue, (enqueued.get(queue) ?? 0) + rows),
  };
  app.get(JobsRuntime).addMetrics(sink);
  await app.init();
  return { app, clock, logger, enqueued };
}

afterEach(async () => {
  ran.length = 0;
  for (const app of open.splice(0).reverse()) await app.close();
});

describe('SchedulerHost wiring', () => {
  it('wakes the worker of its own process at the fire, and counts the fired rows in jobs_enqueued_total', async () => {
    // the worker's idle poll has backed off to a minute: only the fire's own wake starts the row at its instant
    const booted = await boot({
      roles: ['scheduler', 'worker'],
      worker: { idlePollMaxMs: MINUTE },
    });
    await booted.clock.advance(MINUTE);
    expect(ran).toEqual([START + MINUTE]);
    expect(booted.enqueued.get('ticks')).toBe(1);
  });

  it('lets the round in flight at close land within shutdown.deadlineMs', async () => {
    const clock = frozenClock(START);
    const driver = memoryJobDriver({ clock });
    const inner = memorySchedulerState({ driver, clock });
    const landing = gate();
    const state: SchedulerState = {
      ...inner,
      fire: async (request) => {
        await landing.promise;
        return inner.fire(request);
      },
    };
    const booted = await boot(
      { scheduler: { state }, shutdown: { deadlineMs: 2_000 } },
      clock,
      driver,
    );
    await booted.clock.advance(MINUTE);
    const closing = booted.app.close();
    open.splice(open.indexOf(booted.app), 1);
    await booted.clock.advance(1_000);
    landing.open();
    await booted.clock.advance(1_000);
    await closing;
    expect(booted.logger.named('jobs.scheduler.drain-abandoned')).toEqual([]);
    expect(await driver.introspect.list()).toMatchObject([{ name: tick.name }]);
  });

  it('warns on a durable driver with a lease store but no state: the memory state named', async () => {
    const clock = frozenClock(START);
    const booted = await boot({}, clock, { ...memoryJobDriver({ clock }), kind: 'durable' });
    expect(booted.logger.named('jobs.scheduler.memory-defaults')).toMatchObject([
      { level: 'warn', fields: { driver: 'durable', leader: 'driver leases', state: 'in memory' } },
    ]);
  });

  it('warns on a durable backend with a state but no lease store: the memory leader named', async () => {
    const clock = frozenClock(START);
    const memory = memoryJobDriver({ clock });
    const driver: JobDriver = { ...memory, kind: 'durable', leases: undefined };
    const plain = driverBackend(driver);
    const backend = {
      ...plain,
      capabilities: { ...plain.capabilities, schedulerState: true },
      schedulerState: memorySchedulerState({ driver, clock }),
    };
    const booted = await boot({ driver: undefined, backend }, clock, driver);
    expect(booted.logger.named('jobs.scheduler.memory-defaults')).toMatchObject([
      {
        level: 'warn',
        fields: { driver: 'durable', leader: 'always the leader', state: 'driver' },
      },
    ]);
  });
});
