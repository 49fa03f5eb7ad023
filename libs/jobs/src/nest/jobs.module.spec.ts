import { Injectable, Module, Scope, type ModuleMetadata } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { job } from '../declare/job';
import type { JobRunArgs } from '../declare/run-args';
import { memoryJobDriver } from '../driver/memory';
import type { JobRow } from '../driver/job-row';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { recordingLogger, type RecordingLogger } from '../util/logger';
import { Job } from './decorators/job.decorator';
import { JobsModule } from './jobs.module';
import type { JobsModuleOptions } from './jobs.options';
import { JobsService } from './jobs.service';
import { rejectionCode } from '../../test/outcomes';

const ORG = '0190a6f2-6b1e-7c3a-8f00-000000000001';

/** A service the bound job method uses, so a test can see the injection worked. */
@Injectable()
class Greeter {
  readonly greeted: string[] = [];

  greet(orgId: string): string {
    this.greeted.push(orgId);
    return `hello ${orgId}`;
  }
}

const greetOrg = job({
  name: 'nest-spec.greet-org',
  input: t.object({ orgId: t.uuid }),
  idempotencyKey: ({ orgId }) => `greet:${orgId}`,
  tenant: ({ orgId }) => orgId,
});

@Injectable()
class GreetingJobs {
  constructor(private readonly greeter: Greeter) {}

  @Job(greetOrg)
  async greet({ input, step }: JobRunArgs<typeof greetOrg>): Promise<string> {
    return step.run('greet', () => this.greeter.greet(input.orgId));
  }
}

const greetingFeature = { greetOrg };

/** Compile-time only: a method whose args are another job's is refused by the type of `@Job`. */
export class MismatchedJobs {
  // @ts-expect-error the method takes the args of a job with another input
  @Job(greetOrg)
  greet(_args: JobRunArgs<{ day: number }>): void {}
}

interface Booted {
  readonly app: TestingModule;
  readonly clock: FrozenClock;
  readonly logger: RecordingLogger;
  readonly driver: ReturnType<typeof memoryJobDriver>;
}

const open: TestingModule[] = [];

/** Compiles and initialises a testing module on a frozen clock and a memory driver. */
async function boot(
  metadata: ModuleMetadata,
  options: Partial<JobsModuleOptions> = {},
): Promise<Booted> {
  const clock = frozenClock();
  const logger = recordingLogger();
  const driver = memoryJobDriver({ clock });
  const app = await Test.createTestingModule({
    ...metadata,
    imports: [
      // the module's own retention sweep is off: these tests list and count the app's declarations only
      JobsModule.forRoot({
        driver,
        clock,
        logger,
        roles: ['web', 'worker'],
        retention: false,
        ...options,
      }),
      ...(metadata.imports ?? []),
    ],
  }).compile();
  open.push(app);
  await app.init();
  return { app, clock, logger, driver };
}

/** Lets the worker run on the frozen clock until `done` answers a row (a bounded number of turns, no wall time). */
async function until(booted: Booted, id: string, done: (row: JobRow) => boolean): Promise<JobRow> {
  for (let turn = 0; turn < 50; turn++) {
    const row = await booted.driver.get(id);
    if (row !== undefined && done(row)) return row;
    await booted.clock.advance(10);
  }
  throw new Error(`job ${id} never reached the expected state`);
}

afterEach(async () => {
  // Newest first: each facade restores the one installed before it.
  for (const app of open.splice(0).reverse()) await app.close();
});

describe('JobsModule', () => {
  it('runs a @Job method with its injected dependencies, enqueued through JobsService and the handle', async () => {
    const booted = await boot({
      imports: [JobsModule.forFeature({ jobs: [greetingFeature] })],
      providers: [Greeter, GreetingJobs],
    });
    const jobs = booted.app.get(JobsService);
    const greeter = booted.app.get(Greeter);

    const viaService = await jobs.enqueue(greetOrg, { orgId: ORG });
    const viaHandle = await greetOrg.enqueue(
      { orgId: '0190a6f2-6b1e-7c3a-8f00-000000000002' },
      { runId: '0190a6f2-6b1e-7c3a-8f00-0000000000f2' },
    );
    expect(viaHandle.runId).toBe('0190a6f2-6b1e-7c3a-8f00-0000000000f2');

    expect((await until(booted, viaService.id, (r) => r.state === 'done')).tenantId).toBe(ORG);
    await until(booted, viaHandle.id, (r) => r.state === 'done');
    expect(greeter.greeted.sort()).toEqual([ORG, '0190a6f2-6b1e-7c3a-8f00-000000000002']);
    expect(await booted.driver.steps.load(viaService.id)).toMatchObject([
      { name: 'greet', output: `hello ${ORG}` },
    ]);
  });

  it('answers the same ids for a deduped enqueue, and enqueues on behalf of an actor', async () => {
    const booted = await boot(
      {
        imports: [JobsModule.forFeature({ jobs: [greetingFeature] })],
        providers: [Greeter, GreetingJobs],
      },
      { roles: ['web'] },
    );
    const jobs = booted.app.get(JobsService);
    const first = await jobs.as(greetOrg, { id: 'user-1', orgId: ORG }, { orgId: ORG });
    const again = await jobs.enqueue(greetOrg, { orgId: ORG });
    expect(again).toEqual({ ...first, deduped: true });
    expect((await booted.driver.get(first.id))?.enqueuedBy).toBe('user-1');
  });

  it('describes jobs, lists the manifest, counts queues and publishes events', async () => {
    const booted = await boot(
      {
        imports: [JobsModule.forFeature({ jobs: [greetingFeature] })],
        providers: [Greeter, GreetingJobs],
      },
      { roles: ['web'] },
    );
    const jobs = booted.app.get(JobsService);
    expect(jobs.describe(greetOrg)).toMatchObject({ name: 'nest-spec.greet-org', inline: false });
    expect(jobs.manifest().map((d) => d.name)).toEqual(['nest-spec.greet-org']);
    await jobs.enqueue(greetOrg, { orgId: ORG });
    expect(await jobs.stats()).toMatchObject([{ queue: 'default', ready: 1 }]);
    expect(jobs.driver).toBe(booted.driver);
    const event = await jobs.publishEvent('org.greeted', { orgId: ORG });
    expect(event).toMatchObject({ name: 'org.greeted', publishedAt: booted.clock.now() });
  });

  it('stamps export names onto unnamed handles at forFeature', async () => {
    const digests = {
      sendDigest: job({
        input: t.object({ day: t.string }),
        idempotencyKey: ({ day }) => day,
        tenant: 'none',
        run: () => undefined,
      }),
    };
    expect(digests.sendDigest.name).toMatch(/^anonymous-job-/);
    const feature = JobsModule.forFeature({ jobs: [digests] });
    expect(digests.sendDigest.name).toBe('sendDigest');

    const booted = await boot({ imports: [feature] }, { roles: ['web'] });
    expect(booted.app.get(JobsService).manifest()).toMatchObject([
      { name: 'sendDigest', inline: true },
    ]);
    const row = await digests.sendDigest.enqueue({ day: '2026-01-01' });
    expect((await booted.driver.get(row.id))?.name).toBe('sendDigest');
  });

  it('refuses two different handles under one export name in two features (X_JOB_DUPLICATE)', async () => {
    const declare = (): ReturnType<typeof job> =>
      job({
        input: t.object({}),
        idempotencyKey: () => 'k',
        tenant: 'none',
        run: () => undefined,
      });
    const first = { notifyOwner: declare() };
    const second = { notifyOwner: declare() };
    const code = await rejectionCode(
      (async () =>
        boot(
          {
            imports: [
              JobsModule.forFeature({ jobs: [first] }),
              JobsModule.forFeature({ jobs: [second] }),
            ],
          },
          { roles: ['web'] },
        ))(),
    );
    expect(code).toBe('X_JOB_DUPLICATE');
  });

  it('registers one handle named in two features once', async () => {
    const shared = {
      rebuildIndex: job({
        input: t.object({}),
        idempotencyKey: () => 'rebuild',
        tenant: 'none',
        run: () => undefined,
      }),
    };
    const booted = await boot({
      imports: [
        JobsModule.forFeature({ jobs: [shared] }),
        JobsModule.forFeature({ jobs: [shared] }),
      ],
    });
    expect(
      booted.app
        .get(JobRegistry)
        .all()
        .map((j) => j.handle.name),
    ).toEqual(['rebuildIndex']);
  });

  it('registers a handle that only a @Job binding names, and refuses a second binding (X_JOB_DUPLICATE)', async () => {
    const bindingOnly = job({
      name: 'nest-spec.binding-only',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => orgId,
      tenant: ({ orgId }) => orgId,
    });

    @Injectable()
    class BindingOnlyJobs {
      @Job(bindingOnly)
      run({ input }: JobRunArgs<typeof bindingOnly>): string {
        return input.orgId;
      }
    }

    @Injectable()
    class RivalJobs {
      @Job(bindingOnly)
      run(): void {}
    }

    const booted = await boot({ providers: [BindingOnlyJobs] });
    const { id } = await bindingOnly.enqueue({ orgId: ORG });
    await until(booted, id, (r) => r.state === 'done');
    expect(booted.app.get(JobsService).manifest()).toMatchObject([
      { name: 'nest-spec.binding-only' },
    ]);

    expect(await rejectionCode(boot({ providers: [BindingOnlyJobs, RivalJobs] }))).toBe(
      'X_JOB_DUPLICATE',
    );
  });

  it('refuses to start a worker for a declaration with no run and no @Job (X_JOB_UNBOUND)', async () => {
    const unbound = {
      chargeCard: job({
        input: t.object({ orgId: t.uuid }),
        idempotencyKey: ({ orgId }) => orgId,
        tenant: ({ orgId }) => orgId,
      }),
    };
    expect(
      await rejectionCode(boot({ imports: [JobsModule.forFeature({ jobs: [unbound] })] })),
    ).toBe('X_JOB_UNBOUND');

    // A web-only process enqueues it without serving it.
    const web = await boot(
      { imports: [JobsModule.forFeature({ jobs: [unbound] })] },
      { roles: ['web'] },
    );
    await expect(unbound.chargeCard.enqueue({ orgId: ORG })).resolves.toMatchObject({
      deduped: false,
    });
    expect(web.app.get(JobsService).manifest()).toMatchObject([{ name: 'chargeCard' }]);
  });

  it('installs the facade at bootstrap and removes it at close (X_DRIVER_UNAVAILABLE outside)', async () => {
    expect(await rejectionCode(greetOrg.enqueue({ orgId: ORG }))).toBe('X_DRIVER_UNAVAILABLE');

    const clock = frozenClock();
    const app = await Test.createTestingModule({
      imports: [
        JobsModule.forRoot({ driver: 'memory', clock, logger: recordingLogger(), roles: ['web'] }),
        JobsModule.forFeature({ jobs: [greetingFeature] }),
      ],
      providers: [Greeter, GreetingJobs],
    }).compile();
    // Compiled but not bootstrapped: nothing is installed yet.
    expect(await rejectionCode(app.get(JobsService).enqueue(greetOrg, { orgId: ORG }))).toBe(
      'X_DRIVER_UNAVAILABLE',
    );
    await app.init();
    await expect(greetOrg.enqueue({ orgId: ORG })).resolves.toMatchObject({ deduped: false });
    await app.close();
    expect(await rejectionCode(greetOrg.enqueue({ orgId: ORG }))).toBe('X_DRIVER_UNAVAILABLE');
  });

  it('takes its options from forRootAsync({ useFactory, inject })', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });

    @Module({ providers: [{ provide: 'JOBS_CLOCK', useValue: clock }], exports: ['JOBS_CLOCK'] })
    class ClockModule {}

    const app = await Test.createTestingModule({
      imports: [
        JobsModule.forRootAsync({
          imports: [ClockModule],
          inject: ['JOBS_CLOCK'],
          useFactory: (injected: FrozenClock) => ({
            driver,
            clock: injected,
            logger: recordingLogger(),
            roles: ['worker'],
          }),
        }),
        JobsModule.forFeature({ jobs: [greetingFeature] }),
      ],
      providers: [Greeter, GreetingJobs],
    }).compile();
    open.push(app);
    await app.init();
    const { id } = await greetOrg.enqueue({ orgId: ORG });
    await until({ app, clock, driver, logger: recordingLogger() }, id, (r) => r.state === 'done');
    expect(app.get(Greeter).greeted).toEqual([ORG]);
  });

  it('warns about and skips a request-scoped provider with @Job', async () => {
    const scopedJob = job({
      name: 'nest-spec.scoped',
      input: t.object({}),
      idempotencyKey: () => 'scoped',
      tenant: 'none',
    });

    @Injectable({ scope: Scope.REQUEST })
    class ScopedJobs {
      @Job(scopedJob)
      run(): void {}
    }

    const booted = await boot({ providers: [ScopedJobs] }, { roles: ['web'] });
    expect(booted.logger.named('jobs.explorer.non-static-skipped')).toMatchObject([
      { level: 'warn', fields: { binder: 'ScopedJobs.run', job: 'nest-spec.scoped' } },
    ]);
    expect(booted.app.get(JobRegistry).get('nest-spec.scoped')).toBeUndefined();
  });

  it('refuses a driver it cannot create (X_DRIVER_UNAVAILABLE) and an unknown role (X_INVARIANT)', async () => {
    const unknownDriver = 'postgres' as unknown as 'memory';
    expect(await rejectionCode(boot({}, { driver: unknownDriver }))).toBe('X_DRIVER_UNAVAILABLE');
    const unknownRole = ['janitor'] as unknown as ['web'];
    expect(await rejectionCode(boot({}, { roles: unknownRole }))).toBe('X_INVARIANT');
  });

  it('boots a worker with nothing registered, and says so', async () => {
    const booted = await boot({});
    expect(booted.logger.named('jobs.worker.nothing-to-serve')).toHaveLength(1);
  });
});
