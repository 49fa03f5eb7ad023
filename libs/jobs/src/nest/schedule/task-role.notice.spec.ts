import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../../declare/job';
import { task, type TaskEntry } from '../../declare/task';
import { memoryJobDriver } from '../../driver/memory';
import { t } from '../../schema';
import { frozenClock } from '../../testing/frozen-clock';
import { formatLogLine } from '../../util/log-format';
import { recordingLogger, type RecordingLogger } from '../../util/logger';
import { Task } from '../decorators/task.decorator';
import { JobsModule } from '../jobs.module';
import type { JobsRole } from '../jobs.options';

const ping = job({
  name: 'role-notice.ping',
  input: t.object({ at: t.number }),
  idempotencyKey: ({ at }) => `ping:${at}`,
  tenant: 'none',
  run: () => undefined,
});
const declared = {
  nightly: task({ name: 'role-notice.nightly', cron: '0 3 * * *', tz: 'UTC', enqueue: () => [] }),
};

@Injectable()
class Hourly {
  @Task({ name: 'role-notice.hourly', cron: '0 * * * *', tz: 'UTC' })
  hourly(at: number): readonly TaskEntry[] {
    return [[ping, { at }]];
  }
}

describe('jobs.scheduler.no-role: tasks declared in a process that cannot fire them', () => {
  const open: TestingModule[] = [];
  const savedEnv = process.env['JOBS_ROLES'];
  beforeEach(() => delete process.env['JOBS_ROLES']);
  afterEach(async () => {
    for (const app of open.splice(0)) await app.close();
    if (savedEnv === undefined) delete process.env['JOBS_ROLES'];
    else process.env['JOBS_ROLES'] = savedEnv;
  });

  async function boot(
    roles: readonly JobsRole[] | undefined,
    withTasks = true,
  ): Promise<RecordingLogger> {
    const clock = frozenClock();
    const logger = recordingLogger();
    const app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: memoryJobDriver({ clock }),
          clock,
          logger,
          ...(roles === undefined ? {} : { roles }),
        }),
        JobsModule.forFeature({ jobs: [{ ping }], tasks: withTasks ? [declared] : [] }),
      ],
      providers: withTasks ? [Hourly] : [],
    }).compile();
    open.push(app);
    await app.init();
    return logger;
  }

  it('warns once, with the fix, when the roles are the default (web, worker)', async () => {
    const logger = await boot(undefined);
    const notices = logger.named('jobs.scheduler.no-role');
    expect(notices).toHaveLength(1);
    expect(notices[0]?.level).toBe('warn');
    expect(notices[0]?.fields).toMatchObject({
      tasks: ['role-notice.nightly', 'role-notice.hourly'],
      roles: ['web', 'worker'],
      rolesFrom: 'default',
    });
    expect(formatLogLine('jobs.scheduler.no-role', notices[0]?.fields)).toBe(
      'jobs.scheduler.no-role tasks=role-notice.nightly,role-notice.hourly roles=web,worker rolesFrom=default ' +
        "fix=\"Give the process that should fire them the scheduler role: JobsModule.forRoot({ roles: ['web', " +
        "'worker', 'scheduler'] }) or JOBS_ROLES=web,worker,scheduler. Any number of processes may hold it: one " +
        'leader fires each occurrence." reason="this process runs the default roles, and no process fires a task ' +
        'without the scheduler role"',
    );
  });

  it('only informs when the roles were chosen: a web process beside a scheduler process is a normal fleet', async () => {
    const logger = await boot(['web']);
    expect(logger.named('jobs.scheduler.no-role')).toMatchObject([
      { level: 'info', fields: { roles: ['web'], rolesFrom: 'roles' } },
    ]);
  });

  it('reads JOBS_ROLES as a choice too', async () => {
    process.env['JOBS_ROLES'] = 'web';
    const logger = await boot(undefined);
    expect(logger.named('jobs.scheduler.no-role')).toMatchObject([
      { level: 'info', fields: { roles: ['web'], rolesFrom: 'JOBS_ROLES' } },
    ]);
  });

  it('says nothing when the process holds the scheduler role, or declares no task', async () => {
    const scheduling = await boot(['web', 'scheduler']);
    expect(scheduling.named('jobs.scheduler.no-role')).toEqual([]);
    const taskless = await boot(undefined, false);
    expect(taskless.named('jobs.scheduler.no-role')).toEqual([]);
  });
});
