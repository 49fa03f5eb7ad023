import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../declare/job';
import { task } from '../declare/task';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { thrownCode } from '../testing/test-kit';
import { JobsModule } from './jobs.module';
import { JobsService } from './jobs.service';

const START = Date.UTC(2026, 0, 1, 8, 0);

const signup = job({
  name: 'jobs-service-spec.signup',
  input: t.object({ email: t.string, password: t.string }),
  idempotencyKey: ({ email }) => email,
  tenant: 'none',
  queue: 'accounts',
  redact: ['password'],
});

const nightly = task({
  name: 'jobs-service-spec.nightly',
  cron: '0 2 * * *',
  tz: 'UTC',
  enqueue: () => [[signup, { email: 'n@example.test', password: 'x' }]],
});

describe('JobsService: the operator projections', () => {
  let app: TestingModule;
  let service: JobsService;

  beforeEach(async () => {
    const clock = frozenClock(START);
    app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: memoryJobDriver({ clock }),
          clock,
          roles: ['web'],
          retention: false,
        }),
        JobsModule.forFeature({ jobs: [{ signup }], tasks: [{ nightly }] }),
      ],
    }).compile();
    await app.init();
    service = app.get(JobsService);
  });
  afterEach(() => app.close());

  it("reads rows through the app's own declarations: the input is redacted as the job declares", async () => {
    const { id } = await service.enqueue(signup, { email: 'a@example.test', password: 'hunter2' });
    const view = await service.inspectJob(id);
    expect(view).toMatchObject({
      id,
      state: 'ready',
      input: { email: 'a@example.test', password: '[redacted]' },
    });
    expect((await service.listJobs({ queue: 'accounts' })).jobs.map((j) => j.id)).toEqual([id]);
  });

  it('moves rows: cancel, retry, remove; and refuses by code', async () => {
    const { id } = await service.enqueue(signup, { email: 'b@example.test', password: 'p' });
    expect(await service.cancelJob(id)).toMatchObject({ id, state: 'cancelled' });
    expect(await thrownCode(() => service.cancelJob(id))).toBe('X_JOB_NOT_CANCELLABLE');
    expect(await service.retryFromStep(id)).toMatchObject({ id, state: 'ready' });
    expect(await service.removeJob(id)).toEqual({ removed: id });
    expect(await thrownCode(() => service.promoteJob(id))).toBe('X_JOB_NOT_FOUND');
  });

  it('states the manifest, the tasks with their next run, and pauses queues and tasks', async () => {
    expect(service.inspectManifest().jobs).toEqual([
      expect.objectContaining({ name: signup.name, queue: 'accounts', redact: ['password'] }),
    ]);
    await service.pauseTask(nightly.name);
    expect(await service.inspectTasks()).toEqual([
      expect.objectContaining({
        name: nightly.name,
        paused: true,
        next: Date.UTC(2026, 0, 2, 2, 0),
      }),
    ]);
    await service.pauseQueue('accounts');
    expect(await service.inspectQueues()).toEqual([
      expect.objectContaining({ queue: 'accounts', paused: true }),
    ]);
    expect((await service.inspectStats()).sinceMs).toBe(START - 86_400_000);
    expect(service.nextTaskRuns(nightly.name, 2)).toEqual([
      Date.UTC(2026, 0, 2, 2, 0),
      Date.UTC(2026, 0, 3, 2, 0),
    ]);
  });
});
