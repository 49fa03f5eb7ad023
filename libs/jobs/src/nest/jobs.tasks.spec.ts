import { Injectable, Scope } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../declare/job';
import { task, type TaskEntry } from '../declare/task';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../util/logger';
import { Task } from './decorators/task.decorator';
import { JobsModule } from './jobs.module';
import { JobsService } from './jobs.service';
import { TaskRegistry } from './task.registry';
import { codeOf } from '../../test/outcomes';

const START = Date.UTC(2026, 0, 1);

const digest = job({
  name: 'jobs-tasks-spec.digest',
  input: t.object({ occurrenceMs: t.number.int() }),
  idempotencyKey: ({ occurrenceMs }) => `digest:${occurrenceMs}`,
  tenant: 'none',
  run: () => undefined,
});

const open: TestingModule[] = [];

async function boot(metadata: Parameters<typeof Test.createTestingModule>[0]): Promise<{
  app: TestingModule;
  logger: RecordingLogger;
  driver: ReturnType<typeof memoryJobDriver>;
}> {
  const clock = frozenClock(START);
  const logger = recordingLogger();
  const driver = memoryJobDriver({ clock });
  const app = await Test.createTestingModule({
    ...metadata,
    imports: [
      // the module's own retention task is off: these tests list the app's tasks only
      JobsModule.forRoot({ driver, clock, logger, roles: ['web'], retention: false }),
      ...(metadata.imports ?? []),
    ],
  }).compile();
  open.push(app);
  await app.init();
  return { app, logger, driver };
}

afterEach(async () => {
  for (const app of open.splice(0).reverse()) await app.close();
});

describe('JobsModule.forFeature({ tasks })', () => {
  it('stamps an unnamed task with its export name at the call, and lists it in JobsService.tasks()', async () => {
    const tasks = {
      nightlyDigest: task({
        cron: '0 2 * * *',
        tz: 'Europe/Berlin',
        enqueue: (occurrenceMs) => [[digest, { occurrenceMs }]],
      }),
    };
    expect(tasks.nightlyDigest.name).toMatch(/^anonymous-task-/);
    const feature = JobsModule.forFeature({ tasks: [tasks] });
    expect(tasks.nightlyDigest.name).toBe('nightlyDigest');

    const { app } = await boot({ imports: [feature] });
    const jobs = app.get(JobsService);
    expect(jobs.tasks()).toEqual([
      {
        kind: 'task',
        name: 'nightlyDigest',
        cron: '0 2 * * *',
        tz: 'Europe/Berlin',
        catchUp: 'skip',
        maxCatchUp: 10,
        jobs: ['jobs-tasks-spec.digest'],
      },
    ]);
    expect(jobs.task('nightlyDigest')).toBe(tasks.nightlyDigest);
  });

  it('fires a task by hand through JobsService.fireTask, under each job’s own key', async () => {
    const tasks = {
      handFired: task({
        cron: '0 * * * *',
        tz: 'UTC',
        enqueue: (occurrenceMs) => [[digest, { occurrenceMs }]],
      }),
    };
    const { app, driver } = await boot({ imports: [JobsModule.forFeature({ tasks: [tasks] })] });
    const [result] = await app.get(JobsService).fireTask(tasks.handFired);
    expect(result?.deduped).toBe(false);
    expect((await driver.get(result?.id ?? ''))?.idempotencyKey).toBe(`digest:${START}`);
    // an occurrence named by hand builds that occurrence's entries
    const hour = START + 3_600_000;
    const [named] = await app.get(JobsService).fireTask(tasks.handFired, { occurrenceMs: hour });
    expect((await driver.get(named?.id ?? ''))?.idempotencyKey).toBe(`digest:${hour}`);
  });

  it('refuses two different tasks under one export name (X_JOB_DUPLICATE at forFeature)', () => {
    const declare = (): ReturnType<typeof task> =>
      task({ cron: '0 3 * * *', tz: 'UTC', enqueue: () => [] });
    JobsModule.forFeature({ tasks: [{ cleanup: declare() }] });
    expect(codeOf(() => JobsModule.forFeature({ tasks: [{ cleanup: declare() }] }))).toBe(
      'X_JOB_DUPLICATE',
    );
  });

  it('registers one task named in two features once', async () => {
    const shared = { sweep: task({ cron: '0 4 * * *', tz: 'UTC', enqueue: () => [] }) };
    const { app } = await boot({
      imports: [
        JobsModule.forFeature({ tasks: [shared] }),
        JobsModule.forFeature({ jobs: [shared], tasks: [shared] }),
      ],
    });
    expect(
      app
        .get(TaskRegistry)
        .all()
        .map((handle) => handle.name),
    ).toEqual(['sweep']);
  });
});

describe('@Task discovery', () => {
  @Injectable()
  class Clocked {
    @Task({ name: 'jobs-tasks-spec.hourly', cron: '0 * * * *', tz: 'UTC', catchUp: 'run-once' })
    hourly(occurrenceMs: number): readonly TaskEntry[] {
      return [[digest, { occurrenceMs }]];
    }
  }

  it('registers a singleton provider’s @Task and reads its entries from the instance', async () => {
    const { app } = await boot({ providers: [Clocked] });
    const jobs = app.get(JobsService);
    expect(jobs.tasks()).toMatchObject([
      { name: 'jobs-tasks-spec.hourly', catchUp: 'run-once', jobs: ['jobs-tasks-spec.digest'] },
    ]);
    expect(jobs.task('jobs-tasks-spec.hourly')?.entries(START)).toEqual([
      [digest, { occurrenceMs: START }],
    ]);
  });

  it('releases the instance at close: the task cannot read entries outside a running app', async () => {
    const { app } = await boot({ providers: [Clocked] });
    const handle = app.get(JobsService).task('jobs-tasks-spec.hourly');
    await app.close();
    open.splice(open.indexOf(app), 1);
    expect(codeOf(() => handle?.entries(START))).toBe('X_INVARIANT');
  });

  it('warns about and skips a request-scoped provider with @Task', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class Scoped {
      @Task({ name: 'jobs-tasks-spec.scoped', cron: '0 * * * *', tz: 'UTC' })
      tick(): readonly TaskEntry[] {
        return [];
      }
    }

    const { app, logger } = await boot({ providers: [Scoped] });
    expect(logger.named('jobs.explorer.non-static-skipped')).toMatchObject([
      { level: 'warn', fields: { binder: 'Scoped.tick', task: 'jobs-tasks-spec.scoped' } },
    ]);
    expect(app.get(TaskRegistry).get('jobs-tasks-spec.scoped')).toBeUndefined();
  });
});
