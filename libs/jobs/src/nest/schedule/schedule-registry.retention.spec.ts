import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { Test, type TestingModule } from '@nestjs/testing';
import { memoryJobDriver } from '../../driver/memory';
import { frozenClock } from '../../testing/frozen-clock';
import { recordingLogger } from '../../util/logger';
import { JobsModule } from '../jobs.module';
import { SchedulerHost } from '../scheduler.host';
import type { JobsTimerListing } from './schedule-registry.listing';

/**
 * The module's own retention sweep is a task like the app's: a scheduler process that declares no task of its own
 * still runs the scheduler for it, and `SchedulerRegistry` lists that scheduler's timers.
 */
const open: TestingModule[] = [];

afterEach(async () => {
  for (const app of open.splice(0)) await app.close();
});

describe("@nestjs/schedule's SchedulerRegistry with only the retention sweep", () => {
  it('lists the scheduler tick of a scheduler process whose one task is the retention sweep', async () => {
    const clock = frozenClock();
    const app = await Test.createTestingModule({
      imports: [
        ScheduleModule.forRoot(),
        JobsModule.forRoot({
          driver: memoryJobDriver({ clock }),
          clock,
          logger: recordingLogger(),
          roles: ['scheduler'],
        }),
      ],
    }).compile();
    open.push(app);
    await app.init();

    expect(app.get(SchedulerHost).scheduler).toBeDefined();
    const registry = app.get(SchedulerRegistry);
    expect(registry.getIntervals().sort()).toEqual([
      'ultimat3-jobs.scheduler.lease-renewal',
      'ultimat3-jobs.scheduler.tick',
    ]);
    const tick = registry.getInterval<JobsTimerListing>('ultimat3-jobs.scheduler.tick');
    expect(tick.description).toContain('1 task(s)');
  });
});
