import { Test, type TestingModule } from '@nestjs/testing';
import {
  JobsModule,
  JobsService,
  memoryJobDriver,
  recordingLogger,
  type JobDriver,
  type JobRow,
  type MemoryJobDriver,
} from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { ExampleJobsModule } from './example-jobs.module';
import { pollHost, pollHosts } from './fleet.jobs';
import { pollFleet } from './fleet.tasks';
import { EXAMPLE_HOSTS, HostsService } from './hosts.service';

/** One minute past a five-minute boundary: the scheduler arms here, and the next tick is four minutes on. */
const START = Date.UTC(2026, 0, 1, 0, 1);
const TICK = Date.UTC(2026, 0, 1, 0, 5);

describe('the fleet poll, end to end on the memory driver', () => {
  let app: TestingModule;
  let clock: FrozenClock;
  let driver: MemoryJobDriver;

  /** Boots the worker and scheduler roles; `wrap` may stand between the app and the memory driver. */
  async function boot(wrap: (memory: MemoryJobDriver) => JobDriver = (memory) => memory) {
    clock = frozenClock(START);
    driver = memoryJobDriver({ clock });
    app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({
          driver: wrap(driver),
          clock,
          logger: recordingLogger(),
          roles: ['worker', 'scheduler'],
          // the module's own retention task is off: this test lists the example's tasks only
          retention: false,
        }),
        ExampleJobsModule,
      ],
    }).compile();
    app.useLogger(false);
    await app.init();
  }

  afterEach(async () => {
    await app.close();
  });

  const rows = async (name: string): Promise<JobRow[]> =>
    (await driver.introspect.list({ name })).filter((row) => row.name === name);

  /** Drives the worker on the frozen clock until `done` holds (bounded turns, no wall time). */
  async function until(what: string, done: () => Promise<boolean>): Promise<void> {
    for (let turn = 0; turn < 100; turn++) {
      if (await done()) return;
      await clock.advance(100);
    }
    throw new Error(`never reached: ${what}`);
  }

  const allDone = async (name: string, count: number): Promise<boolean> => {
    const found = await rows(name);
    return found.length === count && found.every((row) => row.state === 'done');
  };

  it('registers the task under its export name, naming the one job it enqueues', async () => {
    await boot();
    expect(pollFleet.name).toBe('pollFleet');
    expect(app.get(JobsService).tasks()).toEqual([
      {
        kind: 'task',
        name: 'pollFleet',
        cron: '*/5 * * * *',
        tz: 'UTC',
        catchUp: 'skip',
        maxCatchUp: 10,
        jobs: ['pollHosts'],
      },
    ]);
  });

  it('fires at the next */5 boundary: one fan-out, one child per host, each host polled once', async () => {
    await boot();
    await clock.advance(TICK - START - 1);
    expect(await rows(pollHosts.name)).toEqual([]);
    await clock.advance(1);
    await until('the fan-out and its children finish', async () => allDone(pollHost.name, 3));

    const [fanOut, ...others] = await rows(pollHosts.name);
    expect(others).toEqual([]);
    expect(fanOut).toMatchObject({
      state: 'done',
      input: { occurrenceMs: TICK },
      idempotencyKey: `task:pollFleet:${TICK}:0:poll-hosts:${TICK}`,
    });
    const children = await rows(pollHost.name);
    expect(children.map((row) => row.idempotencyKey).sort()).toEqual(
      EXAMPLE_HOSTS.map((host) => `poll-host:${host.id}:${TICK}`).sort(),
    );
    expect((await driver.steps.load(fanOut?.id ?? '')).map((s) => s.name)).toEqual([
      'list',
      ...EXAMPLE_HOSTS.map((host) => `enqueue:${host.id}`),
    ]);
    const polls = app.get(HostsService).polls;
    expect(polls.map((p) => p.hostId).sort()).toEqual(EXAMPLE_HOSTS.map((h) => h.id).sort());
    expect(polls.every((p) => p.occurrenceMs === TICK)).toBe(true);
  });

  it('enqueues no duplicate children when the fan-out runs again: its steps replay', async () => {
    await boot();
    await clock.advance(TICK - START);
    await until('the first run finishes', async () => allDone(pollHost.name, 3));
    const [fanOut] = await rows(pollHosts.name);

    // The children are done, so their keys no longer dedupe: only the stored steps keep the rerun from re-enqueueing.
    await driver.introspect.requeue(fanOut?.id ?? '');
    await until('the rerun finishes', async () => allDone(pollHosts.name, 1));

    expect(await rows(pollHost.name)).toHaveLength(3);
    expect(app.get(HostsService).polls).toHaveLength(3);
  });

  it('retries a fan-out that failed part-way, enqueueing only the children that had not landed', async () => {
    const [first, second, third] = EXAMPLE_HOSTS.map((host) => `poll-host:${host.id}:${TICK}`);
    let blips = 1;
    await boot((memory) => ({
      ...memory,
      enqueue: (request) => {
        if (request.idempotencyKey === third && blips-- > 0) {
          return Promise.reject(new Error('connection reset'));
        }
        return memory.enqueue(request);
      },
    }));
    await clock.advance(TICK - START);
    await until('the retried fan-out finishes', async () => allDone(pollHost.name, 3));

    const [fanOut] = await rows(pollHosts.name);
    expect(fanOut).toMatchObject({ state: 'done', attempt: 2 });
    expect((await rows(pollHost.name)).map((row) => row.idempotencyKey).sort()).toEqual(
      [first, second, third].sort(),
    );
    expect(app.get(HostsService).polls).toHaveLength(3);
  });
});
