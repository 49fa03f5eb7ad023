import { job } from '../declare/job';
import { task } from '../declare/task';
import { driverBackend } from '../driver/backend';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver, type MemoryJobDriver } from '../driver/memory';
import type { JobMetrics } from '../runtime/metrics';
import { memorySchedulerState } from '../scheduler/memory-scheduler-state';
import type { SchedulerState } from '../scheduler/scheduler-state';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { gate } from '../testing/test-kit';
import { JobsModule } from './jobs.module';
import type { JobsModuleOptions } from './jobs.options';
import { JobsRuntime } from './jobs.runtime';
import { boot, closeBooted, forgetBooted, type Booted } from '../../test/nest-boot';

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

/** A booted module, with `jobs_enqueued_total` as the module's sink was told it, by queue. */
type Counted = Booted & { readonly enqueued: Map<string, number> };

/** A module holding `roles` (default the scheduler's) with the minutely task, a metrics sink registered before its bootstrap. */
async function bootCounted(
  options: Partial<JobsModuleOptions>,
  clock: FrozenClock = frozenClock(START),
  driver: MemoryJobDriver = memoryJobDriver({ clock }),
): Promise<Counted> {
  const enqueued = new Map<string, number>();
  const sink: JobMetrics = {
    jobsTotal: () => undefined,
    leaseLost: () => undefined,
    enqueued: (queue, rows) => enqueued.set(queue, (enqueued.get(queue) ?? 0) + rows),
  };
  const booted = await boot(
    { imports: [JobsModule.forFeature({ jobs: [{ tick }], tasks: [{ minutely }] })] },
    { roles: ['scheduler'], ...options },
    { clock, driver, beforeInit: (app) => app.get(JobsRuntime).addMetrics(sink) },
  );
  return { ...booted, enqueued };
}

afterEach(async () => {
  ran.length = 0;
  await closeBooted();
});

describe('SchedulerHost wiring', () => {
  it('wakes the worker of its own process at the fire, and counts the fired rows in jobs_enqueued_total', async () => {
    // the worker's idle poll has backed off to a minute: only the fire's own wake starts the row at its instant
    const booted = await bootCounted({
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
    const booted = await bootCounted(
      { scheduler: { state }, shutdown: { deadlineMs: 2_000 } },
      clock,
      driver,
    );
    await booted.clock.advance(MINUTE);
    const closing = booted.app.close();
    forgetBooted(booted.app);
    await booted.clock.advance(1_000);
    landing.open();
    await booted.clock.advance(1_000);
    await closing;
    expect(booted.logger.named('jobs.scheduler.drain-abandoned')).toEqual([]);
    expect(await driver.introspect.list()).toMatchObject([{ name: tick.name }]);
  });

  it('warns on a durable driver with a lease store but no state: the memory state named', async () => {
    const clock = frozenClock(START);
    const booted = await bootCounted(
      { driver: { ...memoryJobDriver({ clock }), kind: 'durable' } },
      clock,
    );
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
    const booted = await bootCounted({ driver: undefined, backend }, clock);
    expect(booted.logger.named('jobs.scheduler.memory-defaults')).toMatchObject([
      {
        level: 'warn',
        fields: { driver: 'durable', leader: 'always the leader', state: 'driver' },
      },
    ]);
  });
});
