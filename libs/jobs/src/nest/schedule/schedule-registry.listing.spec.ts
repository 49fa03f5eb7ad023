import { Injectable } from '@nestjs/common';
import { Interval, ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { Test, type TestingModule } from '@nestjs/testing';
import { task } from '../../declare/task';
import { memoryJobDriver } from '../../driver/memory';
import { frozenClock } from '../../testing/frozen-clock';
import { recordingLogger } from '../../util/logger';
import { JobsModule } from '../jobs.module';
import type { JobsModuleOptions } from '../jobs.options';
import { JobsTimerListing } from './schedule-registry.listing';

const sweep = {
  sweep: task({ name: 'listing.sweep', cron: '0 * * * *', tz: 'UTC', enqueue: () => [] }),
};

@Injectable()
class AppTimers {
  ticks = 0;
  @Interval('app.heartbeat', 60_000)
  beat(): void {
    this.ticks++;
  }
}

const OURS = [
  'ultimat3-jobs.scheduler.tick',
  'ultimat3-jobs.scheduler.lease-renewal',
  'ultimat3-jobs.worker.poll',
  'ultimat3-jobs.worker.heartbeat',
];

describe("@nestjs/schedule's SchedulerRegistry lists the module's own timers", () => {
  const open: TestingModule[] = [];
  afterEach(async () => {
    for (const app of open.splice(0)) await app.close();
  });

  async function boot(
    options: Partial<JobsModuleOptions>,
    withSchedule = true,
  ): Promise<TestingModule> {
    const clock = frozenClock();
    const app = await Test.createTestingModule({
      imports: [
        ...(withSchedule ? [ScheduleModule.forRoot()] : []),
        JobsModule.forRoot({
          driver: memoryJobDriver({ clock }),
          clock,
          logger: recordingLogger(),
          ...options,
        }),
        JobsModule.forFeature({ tasks: [sweep] }),
      ],
      providers: [AppTimers],
    }).compile();
    open.push(app);
    await app.init();
    return app;
  }

  it('beside the app’s @Interval: the scheduler tick and lease renewal, the worker poll and heartbeat', async () => {
    const app = await boot({
      roles: ['worker', 'scheduler'],
      scheduler: { tickIntervalMs: 500, renewEveryMs: 6_000 },
      worker: { pollIntervalMs: 100, visibilityTimeoutMs: 9_000 },
    });
    const registry = app.get(SchedulerRegistry);
    expect(registry.getIntervals().sort()).toEqual(['app.heartbeat', ...OURS].sort());

    const tick = registry.getInterval<JobsTimerListing>('ultimat3-jobs.scheduler.tick');
    expect(tick).toBeInstanceOf(JobsTimerListing);
    expect(tick).toMatchObject({ owner: '@ultimat3/jobs', role: 'scheduler', everyMs: 500 });
    expect(
      registry.getInterval<JobsTimerListing>('ultimat3-jobs.scheduler.lease-renewal').everyMs,
    ).toBe(6_000);
    expect(registry.getInterval<JobsTimerListing>('ultimat3-jobs.worker.poll').everyMs).toBe(100);
    expect(registry.getInterval<JobsTimerListing>('ultimat3-jobs.worker.heartbeat').everyMs).toBe(
      3_000,
    );
  });

  it('lists only what the roles run: a web process lists none of them', async () => {
    const app = await boot({ roles: ['web'] });
    expect(app.get(SchedulerRegistry).getIntervals()).toEqual(['app.heartbeat']);
  });

  it('removes the listing at close, and an app that deleted an entry first closes cleanly', async () => {
    const app = await boot({ roles: ['worker', 'scheduler'] });
    const registry = app.get(SchedulerRegistry);
    registry.deleteInterval('ultimat3-jobs.worker.poll');
    await app.close();
    open.splice(open.indexOf(app), 1);
    expect(registry.getIntervals()).toEqual([]);
  });

  it('without ScheduleModule nothing changes: the module boots and runs its roles', async () => {
    const app = await boot({ roles: ['worker', 'scheduler'] }, false);
    expect(() => app.get(SchedulerRegistry, { strict: false })).toThrow();
    expect(app.get(AppTimers).ticks).toBe(0);
  });
});
