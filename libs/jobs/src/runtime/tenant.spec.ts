import { job } from '../declare/job';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { harnessSlot } from '../../test/harness-slot';
import { assertTenant, crossTenant, currentTenant } from './tenant';

const ORG = '0190a0a0-0000-7000-8000-0000000000d1';
const OTHER = '0190a0a0-0000-7000-8000-0000000000d2';
const THIRD = '0190a0a0-0000-7000-8000-0000000000d3';

/** What `fn` threw, by code, or 'allowed'. */
function verdict(fn: () => void): string {
  try {
    fn();
    return 'allowed';
  } catch (error) {
    return errorCodeOf(error) ?? 'uncoded';
  }
}

describe('a run acts under the tenant its job declared', () => {
  const { start } = harnessSlot();

  it('ctx.actor.orgId is the declared org; its own org is allowed, another is X_JOB_TENANT_MISMATCH', async () => {
    const seen: Record<string, unknown> = {};
    const handle = job({
      name: 'tenant.declared',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => `t:${orgId}`,
      tenant: ({ orgId }) => orgId,
      async run({ ctx, step }) {
        seen.actorOrg = ctx.actor.orgId;
        seen.current = currentTenant();
        seen.own = verdict(() => assertTenant(ORG));
        seen.other = verdict(() => assertTenant(OTHER));
        seen.inStep = await step.run('scoped', () => verdict(() => assertTenant(OTHER)));
        seen.crossed = verdict(() => crossTenant('nightly audit', () => assertTenant(OTHER)));
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG });
    await h.settle();

    expect(seen).toEqual({
      actorOrg: ORG,
      current: ORG,
      own: 'allowed',
      other: 'X_JOB_TENANT_MISMATCH',
      inStep: 'X_JOB_TENANT_MISMATCH',
      crossed: 'allowed',
    });
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', tenantId: ORG });
  });

  it("a 'none' job carries null and any org is X_JOB_TENANT_REQUIRED unless inside crossTenant", async () => {
    const seen: Record<string, unknown> = {};
    const handle = job({
      name: 'tenant.none',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => `t:${orgId}`,
      tenant: 'none',
      async run({ ctx }) {
        seen.actorOrg = ctx.actor.orgId;
        seen.current = currentTenant();
        seen.plain = verdict(() => assertTenant(ORG));
        seen.crossed = verdict(() =>
          crossTenant('fan-out over every org', () => assertTenant(ORG)),
        );
        seen.crossedAsync = await crossTenant('async read', async () => {
          await Promise.resolve();
          return verdict(() => assertTenant(OTHER));
        });
        seen.afterCross = verdict(() => assertTenant(ORG));
        seen.noReason = verdict(() => crossTenant('  ', () => undefined));
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG });
    await h.settle();

    expect(seen).toEqual({
      actorOrg: null,
      current: null,
      plain: 'X_JOB_TENANT_REQUIRED',
      crossed: 'allowed',
      crossedAsync: 'allowed',
      afterCross: 'X_JOB_TENANT_REQUIRED',
      noReason: 'X_JOB_TENANT_REQUIRED',
    });
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', tenantId: null });
  });

  it('a crossTenant scope logs each other org once, its own org never; a new scope logs again', async () => {
    const handle = job({
      name: 'tenant.crossing-logged-once',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => `t:${orgId}`,
      tenant: ({ orgId }) => orgId,
      run: () => {
        crossTenant('nightly audit', () => {
          for (let i = 0; i < 3; i++) assertTenant(OTHER);
          assertTenant(ORG);
          assertTenant(THIRD);
        });
        crossTenant('second pass', () => assertTenant(OTHER));
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG });
    await h.settle();

    expect((await h.driver.get(id))?.state).toBe('done');
    const crossed = h.logger.named('jobs.tenant.crossed').map((l) => l.fields);
    expect(crossed.map((f) => [f.reason, f.from, f.to])).toEqual([
      ['nightly audit', ORG, OTHER],
      ['nightly audit', ORG, THIRD],
      ['second pass', ORG, OTHER],
    ]);
  });

  it('outside a run assertTenant allows and currentTenant is undefined', () => {
    expect(verdict(() => assertTenant(OTHER))).toBe('allowed');
    expect(currentTenant()).toBeUndefined();
    expect(crossTenant('script', () => 'ran')).toBe('ran');
  });

  it('a mismatch thrown from a body is terminal: dead on the attempt it happened', async () => {
    const handle = job({
      name: 'tenant.mismatch-terminal',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => `t:${orgId}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 3 },
      run: () => assertTenant(OTHER),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG });
    await h.settle();

    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toContain('terminal: X_JOB_TENANT_MISMATCH');
  });

  it('handle.as stamps enqueuedBy; the run sees the actor id, the org stays the declared one', async () => {
    const actors: unknown[] = [];
    const handle = job({
      name: 'tenant.as-actor',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => `t:${orgId}`,
      tenant: ({ orgId }) => orgId,
      run: ({ ctx }) => void actors.push(ctx.actor),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.as({ id: 'user-1', orgId: ORG }, { orgId: ORG });
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({
      state: 'done',
      enqueuedBy: 'user-1',
      tenantId: ORG,
    });
    expect(actors).toEqual([{ id: 'user-1', orgId: ORG }]);
  });

  it('a plain enqueue has no enqueuer', async () => {
    const actors: unknown[] = [];
    const handle = job({
      name: 'tenant.no-actor',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => `t:${orgId}`,
      tenant: ({ orgId }) => orgId,
      run: ({ ctx }) => void actors.push(ctx.actor),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG });
    await h.settle();

    expect((await h.driver.get(id))?.enqueuedBy).toBeNull();
    expect(actors).toEqual([{ id: null, orgId: ORG }]);
  });
});
