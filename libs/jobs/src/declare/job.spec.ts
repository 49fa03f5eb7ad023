import { z } from 'zod';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { setJobsFacade } from './ambient';
import { directJobsFacade } from './direct-facade';
import { job, stampExportNames } from './job';

const input = t.object({ orgId: t.uuid });
const ORG = '0190a0a0-0000-7000-8000-000000000001';
let n = 0;
const unique = (): string => `decl-${++n}`;

/** The code a thrown call carries. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return undefined;
}

async function codeOfAsync(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return undefined;
}

const base = () => ({
  name: unique(),
  input,
  idempotencyKey: ({ orgId }: { orgId: string }) => orgId,
  tenant: 'none' as const,
});

describe('job() refuses a bad declaration where it is written', () => {
  it('refuses a missing idempotencyKey (a JS caller)', () => {
    const def = { name: unique(), input, tenant: 'none' } as unknown as Parameters<typeof job>[0];
    expect(codeOf(() => job(def))).toBe('X_IDEMPOTENCY_REQUIRED');
  });

  it('refuses a missing or malformed tenant (a JS caller)', () => {
    const missing = { name: unique(), input, idempotencyKey: () => 'k' } as unknown as Parameters<
      typeof job
    >[0];
    expect(codeOf(() => job(missing))).toBe('X_JOB_TENANT_REQUIRED');
    const wrong = { ...base(), tenant: 'all' } as unknown as Parameters<typeof job>[0];
    expect(codeOf(() => job(wrong))).toBe('X_JOB_TENANT_REQUIRED');
  });

  it.each([
    ['retry.attempts 0', { retry: { attempts: 0 } }],
    ['retry.attempts 1.5', { retry: { attempts: 1.5 } }],
    ['retry.attempts NaN', { retry: { attempts: Number.NaN } }],
    ['retry.delay -1', { retry: { delay: -1 } }],
    ['retry.maxDelay Infinity', { retry: { maxDelay: Number.POSITIVE_INFINITY } }],
    ['retry.backoff unknown', { retry: { backoff: 'random' } }],
    ['timeout 0', { timeout: 0 }],
    ['timeout -5', { timeout: -5 }],
    ['timeout NaN', { timeout: Number.NaN }],
    ['timeout Infinity', { timeout: Number.POSITIVE_INFINITY }],
    ['timeout "10 parsecs"', { timeout: '10 parsecs' }],
    ['stepTimeout 0', { stepTimeout: 0 }],
    ['stepTimeout -1', { stepTimeout: -1 }],
    ['eventPoll 0', { eventPoll: 0 }],
    ['eventPoll "0s"', { eventPoll: '0s' }],
    ['concurrency 0', { concurrency: 0 }],
    ['concurrency -1', { concurrency: -1 }],
    ['concurrency 1.5', { concurrency: 1.5 }],
    ['concurrency NaN', { concurrency: Number.NaN }],
    ['concurrency Infinity', { concurrency: Number.POSITIVE_INFINITY }],
    ['concurrency.limit 0', { concurrency: { key: (): string => 'k', limit: 0 } }],
    ['concurrency.key not a function', { concurrency: { key: 'k', limit: 1 } }],
    [
      'concurrency.whenBusy unknown',
      { concurrency: { key: (): string => 'k', limit: 1, whenBusy: 'drop' } },
    ],
    ['queue empty', { queue: '' }],
    ['queue over 63 characters', { queue: 'q'.repeat(64) }],
    ['queue with a space', { queue: 'my queue' }],
    ['priority 0.5', { priority: 0.5 }],
    ['onSettled not a function', { onSettled: 'yes' }],
    ['run not a function', { run: 42 }],
    ['input not a schema', { input: { orgId: 'uuid' } }],
  ])('refuses %s with X_JOB_DECLARATION_INVALID', (_label, patch) => {
    const def = { ...base(), ...patch } as unknown as Parameters<typeof job>[0];
    expect(codeOf(() => job(def))).toBe('X_JOB_DECLARATION_INVALID');
  });

  it('refuses a name that is empty, too long or holds other characters', () => {
    for (const name of ['', 'x'.repeat(129), 'has space', '-leading']) {
      expect(codeOf(() => job({ ...base(), name }))).toBe('X_JOB_DECLARATION_INVALID');
    }
  });

  it('accepts durations as numbers or strings', () => {
    const h = job({ ...base(), timeout: '10s', stepTimeout: 500, eventPoll: '1m' });
    expect(h.describe()).toMatchObject({
      timeoutMs: 10_000,
      stepTimeoutMs: 500,
      eventPollMs: 60_000,
    });
  });
});

describe('names', () => {
  it('refuses two definitions setting the same name at job()', () => {
    const name = unique();
    job({ ...base(), name });
    expect(codeOf(() => job({ ...base(), name }))).toBe('X_JOB_DUPLICATE');
  });

  it('gives an unnamed declaration a positional name, and forFeature stamps the export name', () => {
    const { name: _omit, ...rest } = base();
    const handle = job(rest);
    expect(handle.name).toMatch(/^anonymous-job-\d+$/);
    const stamped = stampExportNames({ sendDigest: handle, notAJob: 42 });
    expect(stamped).toEqual([handle]);
    expect(handle.name).toBe('sendDigest');
    expect(handle.describe().name).toBe('sendDigest');
    // The same namespace seen twice is one registration seen twice.
    expect(() => stampExportNames({ sendDigest: handle })).not.toThrow();
  });

  it('keeps an explicit name under any export name', () => {
    const handle = job(base());
    const name = handle.name;
    stampExportNames({ somethingElse: handle, alias: handle });
    expect(handle.name).toBe(name);
  });

  it('refuses one unnamed handle exported under two names', () => {
    const { name: _omit, ...rest } = base();
    const handle = job(rest);
    expect(codeOf(() => stampExportNames({ notifyA: handle, notifyB: handle }))).toBe(
      'X_JOB_DUPLICATE',
    );
  });

  it('refuses an export name another declaration already holds', () => {
    const taken = job(base());
    const { name: _omit, ...rest } = base();
    const handle = job(rest);
    expect(codeOf(() => stampExportNames({ [taken.name]: handle }))).toBe('X_JOB_DUPLICATE');
  });
});

describe('handles', () => {
  const clock = frozenClock();
  const driver = memoryJobDriver({ clock });
  let uninstall: () => void = () => undefined;
  beforeEach(() => {
    uninstall = setJobsFacade(directJobsFacade({ driver, clock }));
  });
  afterEach(() => uninstall());

  it('enqueue with no facade installed is X_DRIVER_UNAVAILABLE at the call, never a dropped job', async () => {
    uninstall();
    const h = job(base());
    expect(await codeOfAsync(() => h.enqueue({ orgId: ORG }))).toBe('X_DRIVER_UNAVAILABLE');
  });

  it('refuses a bad input at the call with the schema path, and queues nothing', async () => {
    const h = job({
      ...base(),
      input: t.object({ org: t.object({ id: t.uuid }) }),
      idempotencyKey: () => 'k',
    });
    const before = (await driver.stats()).length;
    let issues: unknown;
    try {
      await h.enqueue({ org: { id: 'nope' } });
    } catch (error) {
      expect(errorCodeOf(error)).toBe('X_JOB_INPUT_INVALID');
      issues = (error as { issues: unknown }).issues;
    }
    expect(issues).toEqual([expect.objectContaining({ path: 'org.id' })]);
    expect((await driver.stats()).length).toBe(before);
  });

  it('accepts any Standard Schema validator (zod)', async () => {
    const h = job({
      name: unique(),
      input: z.object({ orgId: z.string().min(3) }),
      idempotencyKey: ({ orgId }) => orgId,
      tenant: ({ orgId }) => orgId,
    });
    const ok = await h.enqueue({ orgId: 'org-1' });
    expect((await driver.get(ok.id))?.tenantId).toBe('org-1');
    expect(await codeOfAsync(() => h.enqueue({ orgId: 'x' }))).toBe('X_JOB_INPUT_INVALID');
    expect(h.describe().inputVendor).toBe('zod');
  });

  it('answers { id, runId, deduped } and dedupes a live key', async () => {
    const h = job({ ...base(), tenant: ({ orgId }) => orgId });
    const runId = '0190a6f2-6b1e-7c3a-8f00-00000000c0de';
    const first = await h.enqueue({ orgId: ORG }, { runId });
    expect(first).toMatchObject({ runId, deduped: false });
    const again = await h.enqueue({ orgId: ORG });
    expect(again).toEqual({ id: first.id, runId, deduped: true });
    expect(await codeOfAsync(() => h.enqueue({ orgId: ORG }, { onConflict: 'error' }))).toBe(
      'X_JOB_DUPLICATE',
    );
  });

  it('as(actor, input) stamps enqueuedBy and the tenant', async () => {
    const h = job(base());
    const { id } = await h.as({ id: 'user-7', orgId: 'org-9' }, { orgId: ORG });
    expect(await driver.get(id)).toMatchObject({ enqueuedBy: 'user-7', tenantId: 'org-9' });
  });

  it('runAt and delay schedule the row; a tenant function answering nothing is refused', async () => {
    const h = job(base());
    const a = await h.enqueue({ orgId: ORG }, { delay: '1m' });
    expect(await driver.get(a.id)).toMatchObject({ state: 'delayed', runAt: clock.now() + 60_000 });
    const later = job({ ...base(), tenant: () => '' });
    expect(await codeOfAsync(() => later.enqueue({ orgId: ORG }))).toBe('X_JOB_TENANT_REQUIRED');
    expect(await codeOfAsync(() => h.enqueue({ orgId: ORG }, { runAt: Number.NaN }))).toBe(
      'X_JOB_OPTIONS_INVALID',
    );
  });

  it('validates a keyed concurrency key at enqueue', async () => {
    const mk = (key: string) => job({ ...base(), concurrency: { key: () => key, limit: 1 } });
    expect(await codeOfAsync(() => mk('').enqueue({ orgId: ORG }))).toBe(
      'X_JOB_DECLARATION_INVALID',
    );
    expect(await codeOfAsync(() => mk('k'.repeat(201)).enqueue({ orgId: ORG }))).toBe(
      'X_JOB_DECLARATION_INVALID',
    );
    const { id } = await mk('acct-1').enqueue({ orgId: ORG });
    expect((await driver.get(id))?.concurrencyKey).toBe('acct-1');
  });

  it('refuses an oversized input at enqueue', async () => {
    const h = job({ ...base(), input: t.object({ blob: t.string }), idempotencyKey: () => 'big' });
    expect(await codeOfAsync(() => h.enqueue({ blob: 'x'.repeat(1_100_000) }))).toBe(
      'X_JOB_PAYLOAD_TOO_LARGE',
    );
  });

  it('describe() is JSON-serialisable', () => {
    const h = job({ ...base(), retry: { attempts: 5 }, concurrency: 3 });
    const d = h.describe();
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    expect(d).toMatchObject({
      kind: 'job',
      queue: 'default',
      tenant: 'none',
      concurrency: { limit: 3, keyed: false },
    });
  });
});
