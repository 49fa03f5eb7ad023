import { Injectable } from '@nestjs/common';
import { job } from '../declare/job';
import type { JobRunArgs } from '../declare/run-args';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { Job } from './decorators/job.decorator';
import { JobsModule } from './jobs.module';
import { JobsService } from './jobs.service';
import { rejectionCode } from '../../test/outcomes';
import { boot, closeBooted, ORG, until } from '../../test/nest-boot';

afterEach(closeBooted);

describe('JobsModule: which handles it registers', () => {
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
});
