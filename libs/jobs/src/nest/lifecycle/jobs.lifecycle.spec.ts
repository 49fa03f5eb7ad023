import { Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../../declare/job';
import { task } from '../../declare/task';
import type { JobDriver } from '../../driver/job-driver';
import { errorCodeOf, JobsError } from '../../errors/jobs-error';
import { t } from '../../schema';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import type { JobsLogger } from '../../util/logger';
import { JobsModule } from '../jobs.module';
import type { JobsModuleOptions } from '../jobs.options';
import { JobsLifecycle } from './jobs.lifecycle';
import type { JobsRoleHost } from './role-host';
import { closeRecordingDriver } from '../../../test/close-recording-driver';

const held = job({
  name: 'lifecycle-spec.held',
  input: t.object({}),
  idempotencyKey: () => 'held',
  tenant: 'none',
  run: ({ signal }) =>
    new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason as Error)),
    ),
});

const unbound = job({
  name: 'lifecycle-spec.unbound',
  input: t.object({}),
  idempotencyKey: () => 'unbound',
  tenant: 'none',
});

const minutely = task({
  name: 'lifecycle-spec.minutely',
  cron: '* * * * *',
  tz: 'UTC',
  enqueue: () => [],
});

/** Everything that happened, in order: log events, the fake relay's calls and `driver.close`. */
const order: string[] = [];

/** A relay stand-in: the lifecycle orders it among the real worker and scheduler, as it does `OutboxHost`. */
@Injectable()
class RecordingRelay implements JobsRoleHost, OnModuleInit {
  readonly role = 'relay';
  constructor(private readonly lifecycle: JobsLifecycle) {}
  onModuleInit(): void {
    this.lifecycle.addHost(this);
  }
  start(): Promise<void> {
    order.push('relay.start');
    return Promise.resolve();
  }
  beginStop(cause: string): void {
    order.push(`relay.beginStop:${cause}`);
  }
  stop(): Promise<void> {
    order.push('relay.stop');
    return Promise.resolve();
  }
}

/** What an app's own provider meets when it enqueues from its hooks. */
@Injectable()
class EarlyProducer implements OnModuleInit, OnApplicationBootstrap {
  atModuleInit: unknown;
  atBootstrap: unknown;
  async onModuleInit(): Promise<void> {
    this.atModuleInit = await held.enqueue({}).catch((error: unknown) => error);
  }
  async onApplicationBootstrap(): Promise<void> {
    this.atBootstrap = await held.enqueue({}).catch((error: unknown) => error);
  }
}

const open: TestingModule[] = [];

async function compile(
  options: Partial<JobsModuleOptions>,
  providers: (typeof RecordingRelay | typeof EarlyProducer)[] = [],
  jobs: Record<string, unknown> = { held },
): Promise<{ app: TestingModule; clock: FrozenClock; driver: JobDriver }> {
  const clock = frozenClock();
  const driver = closeRecordingDriver(clock, order);
  const logger: JobsLogger = {
    log: (_level, event, fields) =>
      void order.push(
        event === 'jobs.module.stopping' ? `${event}:${String(fields?.['cause'])}` : event,
      ),
  };
  const app = await Test.createTestingModule({
    imports: [
      JobsModule.forRoot({ driver, clock, logger, ...options }),
      JobsModule.forFeature({ jobs: [jobs], tasks: [{ minutely }] }),
    ],
    providers,
  }).compile();
  open.push(app);
  return { app, clock, driver };
}

beforeEach(() => {
  order.length = 0;
});

afterEach(async () => {
  for (const app of open.splice(0).reverse()) await app.close();
});

describe('JobsLifecycle', () => {
  it('starts worker, relay, scheduler; stops scheduler, relay, worker — each stops taking work, then each is waited for — and closes the driver last', async () => {
    const { app } = await compile({ roles: ['worker', 'scheduler', 'relay'] }, [RecordingRelay]);
    await app.init();
    const at = (event: string): number => order.indexOf(event);
    expect(at('jobs.worker.started')).toBeLessThan(at('relay.start'));
    expect(at('relay.start')).toBeLessThan(at('jobs.scheduler.started'));
    expect(at('jobs.scheduler.started')).toBeLessThan(at('jobs.module.started'));

    order.length = 0;
    await app.close();
    expect(order.filter((e) => !e.startsWith('jobs.scheduler.lease'))).toEqual([
      'jobs.module.stopping:app.close()',
      // a scheduler with no round in flight and no lease to hand back (the frozen clock never ticked) is stopped at once
      'jobs.scheduler.stopped',
      'relay.beginStop:app.close()',
      'jobs.worker.draining',
      'relay.stop',
      'jobs.worker.stopped',
      'driver.close',
    ]);
  });

  it('hands a held run back with the cause of the shutdown: app.close() is not a SIGTERM', async () => {
    const { app, clock, driver } = await compile({ roles: ['worker'] });
    await app.init();
    const { id } = await held.enqueue({});
    for (let turn = 0; turn < 50 && (await driver.get(id))?.state !== 'running'; turn++) {
      await clock.advance(10);
    }
    await app.close();
    const row = await driver.get(id);
    expect(row).toMatchObject({ state: 'ready', attempt: 0 });
    expect(row?.lastError).toContain('X_DRAINING');
    expect(row?.lastError).toContain('app.close()');
    expect(row?.lastError).not.toContain('SIGTERM');
  });

  it('holds the process open from bootstrap until shutdown has closed the driver, only for a long-running role', async () => {
    const worker = await compile({ roles: ['worker'] });
    const web = await compile({ roles: ['web'] });
    const lifecycle = worker.app.get(JobsLifecycle);
    expect(lifecycle.holdsProcess).toBe(false); // compiled, not bootstrapped
    await worker.app.init();
    await web.app.init();
    expect(lifecycle.holdsProcess).toBe(true);
    expect(web.app.get(JobsLifecycle).holdsProcess).toBe(false);
    await worker.app.close();
    expect(lifecycle.holdsProcess).toBe(false);
  });

  it('installs the facade before any other module bootstraps, and says what works when enqueue() comes too early or too late', async () => {
    const { app } = await compile({ roles: ['web'] }, [EarlyProducer]);
    await app.init();
    const producer = app.get(EarlyProducer);
    expect(errorCodeOf(producer.atModuleInit)).toBe('X_DRIVER_UNAVAILABLE');
    expect((producer.atModuleInit as JobsError).fix).toContain('onApplicationBootstrap');
    expect(producer.atBootstrap).toMatchObject({ deduped: false });

    await app.close();
    open.splice(open.indexOf(app), 1);
    const late = await held.enqueue({}).catch((error: unknown) => error);
    expect(errorCodeOf(late)).toBe('X_DRIVER_UNAVAILABLE');
    expect((late as JobsError).fix).toContain('closed application');
  });

  it('fails the boot with the coded error of a host that cannot start, stopping what already started, and holds nothing', async () => {
    const { app } = await compile({ roles: ['worker', 'scheduler'] }, [], { held, unbound });
    const lifecycle = app.get(JobsLifecycle);
    const failed = await app.init().catch((error: unknown) => error);
    expect(errorCodeOf(failed)).toBe('X_JOB_UNBOUND');
    expect(order).not.toContain('jobs.scheduler.started'); // the worker starts first and refused
    expect(lifecycle.holdsProcess).toBe(false);
  });

  it('warns when the relay role is held with no OutboxModule to run it', async () => {
    const { app } = await compile({ roles: ['web', 'relay'] });
    await app.init();
    expect(order).toContain('jobs.relay.no-outbox');
  });
});
