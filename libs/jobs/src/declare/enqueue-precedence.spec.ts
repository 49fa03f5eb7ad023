import type { EnqueueRequest } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { MAX_DURATION_MS, MAX_TENANT_LENGTH } from '../values/bounds';
import { rejectionCode } from '../../test/outcomes';
import { setJobsFacade } from './ambient';
import { directJobsFacade } from './direct-facade';
import { MAX_INPUT_BYTES } from './enqueue';
import { job } from './job';

let n = 0;
const unique = (): string => `precedence-${++n}`;
const ORG = 'org-declared';

const input = t.object({ id: t.string, org: t.string, blob: t.string });
const definition = (tenant: 'none' | 'input' = 'none') => ({
  name: unique(),
  input,
  idempotencyKey: ({ id }: { id: string }) => id,
  tenant: tenant === 'none' ? ('none' as const) : ({ org }: { org: string }) => org,
  queue: 'declared-q',
  priority: 5,
});
const declare = (tenant: 'none' | 'input' = 'none') => job(definition(tenant));
const item = (id: string, blob = '') => ({ id, org: ORG, blob });

describe('what an enqueue writes (memory driver)', () => {
  const clock = frozenClock();
  const driver = memoryJobDriver({ clock });
  const woken: string[] = [];
  let uninstall: () => void = () => undefined;
  beforeEach(() => {
    woken.length = 0;
    uninstall = setJobsFacade(
      directJobsFacade({ driver, clock, onEnqueued: (queue) => woken.push(queue) }),
    );
  });
  afterEach(() => uninstall());

  it('options.queue and options.priority override the declared ones, single and batch', async () => {
    const h = declare();
    const one = await h.enqueue(item('a'), { queue: 'other-q', priority: -3 });
    const [many] = await h.enqueueMany([item('b')], { queue: 'other-q', priority: -3 });
    for (const id of [one.id, many?.id ?? '']) {
      expect(await driver.get(id)).toMatchObject({ queue: 'other-q', priority: -3 });
    }
    const plain = await h.enqueue(item('c'));
    expect(await driver.get(plain.id)).toMatchObject({ queue: 'declared-q', priority: 5 });
  });

  it('stores the declared retry.attempts on the row, single and batch', async () => {
    const h = job({ ...definition(), retry: { attempts: 7 } });
    const one = await h.enqueue(item('a'));
    const [many] = await h.enqueueMany([item('b')]);
    for (const id of [one.id, many?.id ?? '']) {
      expect((await driver.get(id))?.maxAttempts).toBe(7);
    }
  });

  it("the declared tenant wins over the actor's org; the actor's org fills in only under tenant: 'none'", async () => {
    const derived = await declare('input').as({ id: 'u-1', orgId: 'org-actor' }, item('a'));
    expect(await driver.get(derived.id)).toMatchObject({ tenantId: ORG, enqueuedBy: 'u-1' });
    const none = await declare('none').as({ id: 'u-1', orgId: 'org-actor' }, item('a'));
    expect(await driver.get(none.id)).toMatchObject({ tenantId: 'org-actor' });
  });

  it('refuses a tenant function answering a malformed tenant, and queues nothing', async () => {
    const h = declare('input');
    const before = await driver.stats();
    for (const org of ['org\u0000', 'o'.repeat(MAX_TENANT_LENGTH + 1), 'org-\ud800']) {
      expect(await rejectionCode(h.enqueue({ id: 'a', org, blob: '' }))).toBe(
        'X_JOB_DECLARATION_INVALID',
      );
    }
    expect(await driver.stats()).toEqual(before);
  });

  it('refuses an actor that is not an object (a JS caller), and queues nothing', async () => {
    const h = declare();
    const before = await driver.stats();
    for (const actor of ['user-7', 42]) {
      expect(await rejectionCode(h.as(actor as never, item('a')))).toBe('X_JOB_OPTIONS_INVALID');
    }
    expect(await driver.stats()).toEqual(before);
  });

  it("an actor's empty id and org read as none, as null does", async () => {
    const { id } = await declare().as({ id: '', orgId: '' }, item('a'));
    expect(await driver.get(id)).toMatchObject({ enqueuedBy: null, tenantId: null });
  });

  it('dedupes a live key by default when other options are given, single and batch', async () => {
    const h = declare();
    const first = await h.enqueue(item('a'), { delay: '1m' });
    const again = await h.enqueue(item('a'), { delay: '1m' });
    const [batched] = await h.enqueueMany([item('a')], { priority: 1 });
    expect(again).toEqual({ ...first, deduped: true });
    expect(batched).toEqual({ ...first, deduped: true });
  });

  it('rounds a fractional runAt to the nearest millisecond', async () => {
    const { id } = await declare().enqueue(item('a'), { runAt: clock.now() + 1_000.6 });
    expect((await driver.get(id))?.runAt).toBe(clock.now() + 1_001);
  });

  it("rounds a fractional delay in milliseconds as it rounds '1.5ms', where it refused the run time it made", async () => {
    const h = declare();
    const { id } = await h.enqueue(item('a'), { delay: 1_000.6 });
    expect((await driver.get(id))?.runAt).toBe(clock.now() + 1_001);
    const [batched] = await h.enqueueMany([item('b')], { delay: 0.4 });
    expect((await driver.get(batched?.id ?? ''))?.runAt).toBe(clock.now());
  });

  it('accepts a delay of exactly 100 years, and refuses 1 ms more', async () => {
    const h = declare();
    const { id } = await h.enqueue(item('a'), { delay: MAX_DURATION_MS });
    expect((await driver.get(id))?.runAt).toBe(clock.now() + MAX_DURATION_MS);
    expect(await rejectionCode(h.enqueue(item('b'), { delay: MAX_DURATION_MS + 1 }))).toBe(
      'X_JOB_OPTIONS_INVALID',
    );
  });

  it('holds the input to 1 MiB of UTF-8, not of characters, and accepts exactly 1 MiB', async () => {
    const h = declare();
    const overhead = JSON.stringify(item('a')).length; // the serialised input around `blob`
    const exact = await h.enqueue(item('a', 'x'.repeat(MAX_INPUT_BYTES - overhead)));
    expect(exact.deduped).toBe(false);
    // 400,000 characters, 1,200,000 bytes: under the limit counted in characters, over it in bytes
    expect(await rejectionCode(h.enqueue(item('b', '€'.repeat(400_000))))).toBe(
      'X_JOB_PAYLOAD_TOO_LARGE',
    );
  });

  it('a batch is claimed in the order given where its rows tie on priority and run time', async () => {
    const h = declare();
    const given = Array.from({ length: 40 }, (_, i) => `order-${String(i).padStart(2, '0')}`);
    await h.enqueueMany(
      [...given].reverse().map((id) => item(id)),
      { queue: 'ordered-q' },
    );
    const claimed = await driver.claim({
      workerId: 'w1',
      slots: [{ queue: 'ordered-q', limit: 40 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(claimed.map((c) => (c.input as { id: string }).id)).toEqual([...given].reverse());
  });

  it('wakes no worker for a batch whose every item deduped into a live row', async () => {
    const h = declare();
    await h.enqueue(item('a'));
    expect(woken).toEqual(['declared-q']);
    woken.length = 0;
    const results = await h.enqueueMany([item('a')]);
    expect(results[0]?.deduped).toBe(true);
    expect(woken).toEqual([]);
  });
});

describe("the caller's transaction", () => {
  it('is handed to the facade under either name, tx or manager, single and batch', async () => {
    const clock = frozenClock();
    const direct = directJobsFacade({ driver: memoryJobDriver({ clock }), clock });
    const seen: unknown[] = [];
    const uninstall = setJobsFacade({
      now: direct.now,
      enqueue: (request: EnqueueRequest, options: { readonly tx?: unknown }) => {
        seen.push(options.tx);
        return direct.enqueue(request, options);
      },
      enqueueMany: (requests: readonly EnqueueRequest[], options: { readonly tx?: unknown }) => {
        seen.push(options.tx);
        return direct.enqueueMany(requests, options);
      },
    });
    try {
      const h = declare();
      const manager = { name: 'entity-manager' };
      await h.enqueue(item('a'), { manager });
      await h.enqueueMany([item('b')], { manager });
      await h.enqueue(item('c'), { tx: manager });
      expect(seen).toEqual([manager, manager, manager]);
    } finally {
      uninstall();
    }
  });
});
