import { job } from '../declare/job';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { crossTenant } from './tenant';

const A = '0190a0a0-0000-7000-8000-0000000000a1';
const B = '0190a0a0-0000-7000-8000-0000000000b2';

/** A job of the tenant its input names: enqueued inside a run, it carries that tenant's authority. */
const invoice = job({
  name: 'tenant-enqueue.invoice',
  input: t.object({ orgId: t.uuid, n: t.number }),
  idempotencyKey: ({ orgId, n }) => `invoice:${orgId}:${n}`,
  tenant: ({ orgId }) => orgId,
  run: () => Promise.resolve(),
});

/** A job of no tenant: it carries no authority, so any run may enqueue it. */
const audit = job({
  name: 'tenant-enqueue.audit',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `audit:${n}`,
  tenant: 'none',
  run: () => Promise.resolve(),
});

/** What each enqueue a body tries answers: its job id, or its error code. */
const outcomes: Record<string, string> = {};
const attempt = async (label: string, fn: () => Promise<{ id: string }>): Promise<void> => {
  try {
    outcomes[label] = (await fn()).id;
  } catch (error) {
    outcomes[label] = errorCodeOf(error) ?? 'uncoded';
  }
};

const fromTenantRun = job({
  name: 'tenant-enqueue.from-a',
  input: t.object({ orgId: t.uuid }),
  idempotencyKey: ({ orgId }) => `from:${orgId}`,
  tenant: ({ orgId }) => orgId,
  retry: { attempts: 1 },
  async run() {
    await attempt('own', () => invoice.enqueue({ orgId: A, n: 1 }));
    await attempt('other', () => invoice.enqueue({ orgId: B, n: 2 }));
    await attempt('none', () => audit.enqueue({ n: 3 }));
    await attempt('crossed', () =>
      crossTenant('partner settlement', () => invoice.enqueue({ orgId: B, n: 4 })),
    );
    await attempt('crossed-own', () =>
      crossTenant('not a crossing', () => invoice.enqueue({ orgId: A, n: 5 })),
    );
  },
});

const fromNoneRun = job({
  name: 'tenant-enqueue.from-none',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `from-none:${n}`,
  tenant: 'none',
  retry: { attempts: 1 },
  async run() {
    await attempt('none-to-b', () => invoice.enqueue({ orgId: B, n: 6 }));
    await attempt('fan-out', () =>
      crossTenant('nightly digest fan-out', () => invoice.enqueue({ orgId: B, n: 7 })),
    );
  },
});

const uncaught = job({
  name: 'tenant-enqueue.uncaught',
  input: t.object({ orgId: t.uuid }),
  idempotencyKey: ({ orgId }) => `uncaught:${orgId}`,
  tenant: ({ orgId }) => orgId,
  retry: { attempts: 3 },
  async run() {
    await invoice.enqueue({ orgId: B, n: 8 });
  },
});

describe('enqueue inside a run: the enqueued tenant must be the run’s', () => {
  let h: JobsHarness;
  beforeEach(async () => {
    for (const key of Object.keys(outcomes)) delete outcomes[key];
    h = await runJobs({ jobs: [invoice, audit, fromTenantRun, fromNoneRun, uncaught] });
  });
  afterEach(async () => {
    await h.close();
  });

  it('in a tenant-A run: A and no-tenant jobs enqueue; a B job is X_JOB_TENANT_MISMATCH unless inside crossTenant', async () => {
    await fromTenantRun.enqueue({ orgId: A });
    await h.settle();
    expect(outcomes.other).toBe('X_JOB_TENANT_MISMATCH');
    for (const label of ['own', 'none', 'crossed', 'crossed-own']) {
      expect(outcomes[label]).toMatch(/^[0-9a-f-]{36}$/);
    }
    // nothing was queued for the refused enqueue
    const rows = await h.driver.introspect!.list({ name: invoice.name });
    expect(rows.map((r) => (r.input as { n: number }).n).sort()).toEqual([1, 4, 5]);

    // the crossing is recorded on the row it wrote, and in the log; a same-tenant enqueue records none
    expect(await h.driver.get(outcomes.crossed ?? '')).toMatchObject({
      tenantId: B,
      crossTenantReason: 'partner settlement',
    });
    expect(await h.driver.get(outcomes['crossed-own'] ?? '')).toMatchObject({
      tenantId: A,
      crossTenantReason: null,
    });
    expect(await h.driver.get(outcomes.own ?? '')).toMatchObject({ crossTenantReason: null });
    expect(h.logger.named('jobs.tenant.crossed').map((e) => e.fields)).toEqual([
      expect.objectContaining({
        reason: 'partner settlement',
        from: A,
        to: B,
        job: invoice.name,
        by: fromTenantRun.name,
      }),
    ]);
  });

  it("in a 'none' run: an org's job needs crossTenant (the fan-out), and records why", async () => {
    await fromNoneRun.enqueue({ n: 1 });
    await h.settle();
    expect(outcomes['none-to-b']).toBe('X_JOB_TENANT_MISMATCH');
    expect(await h.driver.get(outcomes['fan-out'] ?? '')).toMatchObject({
      tenantId: B,
      crossTenantReason: 'nightly digest fan-out',
    });
    expect(h.logger.named('jobs.tenant.crossed')[0]?.fields).toMatchObject({
      from: null,
      to: B,
      reason: 'nightly digest fan-out',
    });
  });

  it('a body that does not catch it dead-letters on the first attempt: the refusal is not transient', async () => {
    const { id } = await uncaught.enqueue({ orgId: A });
    await h.settle();
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toMatch(/^X_JOB_TENANT_MISMATCH/);
  });

  it('outside a run nothing is checked: the request’s own guard applies there', async () => {
    const queued = await invoice.enqueue({ orgId: B, n: 9 });
    expect(await h.driver.get(queued.id)).toMatchObject({ tenantId: B, crossTenantReason: null });
  });
});
