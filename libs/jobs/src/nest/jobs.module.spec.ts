import { Injectable, Module, Scope } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { job } from '../declare/job';
import type { JobRunArgs } from '../declare/run-args';
import { memoryJobDriver } from '../driver/memory';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { recordingLogger } from '../util/logger';
import { Job } from './decorators/job.decorator';
import { JobsModule } from './jobs.module';
import { JobsService } from './jobs.service';
import { rejectionCode } from '../../test/outcomes';
import {
  boot,
  closeAfterTest,
  closeBooted,
  Greeter,
  greetingFeature,
  GreetingJobs,
  greetOrg,
  ORG,
  until,
} from '../../test/nest-boot';

/** Compile-time only: a method whose args are another job's is refused by the type of `@Job`. */
export class MismatchedJobs {
  // @ts-expect-error the method takes the args of a job with another input
  @Job(greetOrg)
  greet(_args: JobRunArgs<{ day: number }>): void {}
}

afterEach(closeBooted);

/** A second tenant, for a row apart from the one `ORG` dedupes onto. */
const OTHER_ORG = '0190a6f2-6b1e-7c3a-8f00-000000000002';

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
    // the options reach every row of a batch
    const later = booted.clock.now() + 60_000;
    const [other] = await jobs.enqueueMany(greetOrg, [{ orgId: OTHER_ORG }], { runAt: later });
    expect((await booted.driver.get(other?.id ?? ''))?.runAt).toBe(later);
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
    closeAfterTest(app);
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
