import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../../declare/job';
import type { JobDriver } from '../../driver/job-driver';
import { errorCodeOf, JobsError } from '../../errors/jobs-error';
import { t } from '../../schema';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import type { JobsLogger } from '../../util/logger';
import { JobsModule } from '../jobs.module';
import { WorkerHost } from '../worker.host';
import { JobsLifecycle } from './jobs.lifecycle';
import type { JobsRoleHost } from './role-host';
import { closeRecordingDriver } from '../../../test/close-recording-driver';

/**
 * A host that fails — at its start, or at its stop — beside a real worker: a failed boot must not leave the worker that
 * started before it claiming, and a failed stop must still stop the worker after it, surface its error and let the
 * process hold go (Nest 11 runs no `onApplicationShutdown` after a throw in `beforeApplicationShutdown`).
 */
let runs = 0;
const counted = job({
  name: 'lifecycle-failures-spec.counted',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => void (runs += 1),
});

/** Log events and `driver.close`, in order. */
const order: string[] = [];

/** A relay stand-in whose start refuses with a coded error: it starts after the worker. */
@Injectable()
class RefusingRelay implements JobsRoleHost, OnModuleInit {
  readonly role = 'relay';
  constructor(private readonly lifecycle: JobsLifecycle) {}
  onModuleInit(): void {
    this.lifecycle.addHost(this);
  }
  start(): Promise<void> {
    return Promise.reject(new JobsError('X_INVARIANT', 'relay-spec: refused to start'));
  }
  beginStop(): void {}
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

/** A relay stand-in whose stop fails: it stops before the worker. */
@Injectable()
class StuckRelay implements JobsRoleHost, OnModuleInit {
  readonly role = 'relay';
  constructor(private readonly lifecycle: JobsLifecycle) {}
  onModuleInit(): void {
    this.lifecycle.addHost(this);
  }
  start(): Promise<void> {
    return Promise.resolve();
  }
  beginStop(): void {}
  stop(): Promise<void> {
    return Promise.reject(new Error('relay-spec: stuck at stop'));
  }
}

const open: TestingModule[] = [];

async function compile(
  relay: typeof RefusingRelay | typeof StuckRelay,
): Promise<{ app: TestingModule; clock: FrozenClock; driver: JobDriver }> {
  const clock = frozenClock();
  const driver = closeRecordingDriver(clock, order);
  const logger: JobsLogger = { log: (_level, event) => void order.push(event) };
  const app = await Test.createTestingModule({
    imports: [
      JobsModule.forRoot({ driver, clock, logger, roles: ['worker', 'relay'], retention: false }),
      JobsModule.forFeature({ jobs: [{ counted }] }),
    ],
    providers: [relay],
  }).compile();
  open.push(app);
  return { app, clock, driver };
}

beforeEach(() => {
  order.length = 0;
  runs = 0;
});

afterEach(async () => {
  for (const app of open.splice(0).reverse()) await app.close().catch(() => undefined);
});

describe('JobsLifecycle when a host fails', () => {
  it('fails the boot with the error of a host that cannot start, and stops the worker that started before it', async () => {
    const { app, clock, driver } = await compile(RefusingRelay);
    const host = app.get(WorkerHost);
    const failed = await app.init().catch((error: unknown) => error);
    expect(errorCodeOf(failed)).toBe('X_INVARIANT');
    expect(order).toContain('jobs.worker.started');
    expect(order).toContain('jobs.worker.stopped');
    expect(host.worker).toBeUndefined();
    expect(app.get(JobsLifecycle).holdsProcess).toBe(false);
    // the direct facade was installed before the hosts started: the row lands, and nothing claims it
    const { id } = await counted.enqueue({ n: 1 });
    await clock.advance(10_000);
    expect(runs).toBe(0);
    expect((await driver.get(id))?.state).toBe('ready');
  });

  it('rejects beforeApplicationShutdown with the error of a host that cannot stop, still stops the worker after it, and lets the hold go', async () => {
    const { app } = await compile(StuckRelay);
    await app.init();
    const lifecycle = app.get(JobsLifecycle);
    expect(lifecycle.holdsProcess).toBe(true);

    // the hook as Nest calls it: Nest 11 then rejects app.close() and runs no later hook; Nest 12 logs it and goes on
    await expect(lifecycle.beforeApplicationShutdown()).rejects.toThrow(
      'relay-spec: stuck at stop',
    );

    expect(order).toContain('jobs.worker.stopped');
    expect(app.get(WorkerHost).worker).toBeUndefined();
    expect(lifecycle.holdsProcess).toBe(false);
  });
});
