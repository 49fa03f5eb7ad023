import { backendConformance, frozenClock } from '../testing';
import { claimOf } from './job-row';
import { MEMORY_CAPABILITIES, memoryBackend, memoryJobDriver } from './memory';
import { orderedRequests } from '../../test/requests';

backendConformance('memory', MEMORY_CAPABILITIES, (clock) => memoryBackend({ clock }));

describe('memoryJobDriver (memory only)', () => {
  const request = orderedRequests({ name: 'memory.job', queue: 'q', input: { n: 1 }, runAt: 0 });
  const claimArgs = {
    workerId: 'w',
    visibilityTimeoutMs: 1_000,
    slots: [{ queue: 'q', limit: 10 }],
  };

  it('is kind memory and carries the operator surface and the lease store', () => {
    const driver = memoryJobDriver();
    expect(driver.kind).toBe('memory');
    expect(driver.introspect).toBeDefined();
    expect(driver.leases).toBeDefined();
  });

  it('reads the system clock by default', async () => {
    const driver = memoryJobDriver();
    const before = Date.now();
    const r = request({ runAt: before });
    await driver.enqueue(r);
    const row = await driver.get(r.id);
    expect(row?.createdAt).toBeGreaterThanOrEqual(before);
    expect(row?.createdAt).toBeLessThanOrEqual(Date.now());
  });

  it('stamps every time from the given clock', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const r = request({ runAt: clock.now() });
    await driver.enqueue(r);
    await clock.advance(250);
    const [row] = await driver.claim(claimArgs);
    expect(row?.leaseExpiresAt).toBe(clock.now() + 1_000);
    await clock.advance(100);
    await driver.ack(r.id, claimOf(row!));
    expect(await driver.get(r.id)).toMatchObject({
      createdAt: clock.now() - 350,
      updatedAt: clock.now(),
      finishedAt: clock.now(),
    });
  });

  it('enqueueMany is all or nothing: a conflict takes back the rows the batch inserted', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    await driver.enqueue(request({ idempotencyKey: 'held' }));
    const fresh = request();
    const conflicting = request({ idempotencyKey: 'held', onConflict: 'error' });
    await expect(driver.enqueueMany([fresh, conflicting])).rejects.toMatchObject({
      code: 'X_JOB_DUPLICATE',
    });
    expect(await driver.get(fresh.id)).toBeUndefined();
    expect((await driver.introspect.list()).length).toBe(1);
  });

  it('hands out copies: mutating an answered row reaches nothing stored', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    const r = request({ input: { list: [1] } });
    await driver.enqueue(r);
    const row = await driver.get(r.id);
    (row!.input as { list: number[] }).list.push(2);
    expect((await driver.get(r.id))?.input).toEqual({ list: [1] });
  });

  it('keeps its state across close(), so a second worker can take over in a test', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    const r = request();
    await driver.enqueue(r);
    await driver.close();
    await driver.close();
    expect(await driver.claim(claimArgs)).toHaveLength(1);
  });

  it('records a cancel reason as lastError, NUL replaced by U+FFFD', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    const r = request();
    await driver.enqueue(r);
    const row = await driver.introspect.cancel(r.id, 'operator\u0000 said so');
    expect(row?.lastError).toBe('operator\ufffd said so');
  });

  it('replaces NUL in a progress note with U+FFFD', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    await driver.enqueue(request());
    const [row] = await driver.claim(claimArgs);
    await driver.recordProgress(row!.id, claimOf(row!), { done: 1, total: 2, note: 'a\u0000b' });
    expect((await driver.get(row!.id))?.progress).toEqual({ done: 1, total: 2, note: 'a\ufffdb' });
  });

  it('rejects (never throws synchronously) when claim has no slot', () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    const claim = driver.claim({ ...claimArgs, slots: [] });
    return expect(claim).rejects.toMatchObject({ code: 'X_JOB_CLAIM_QUEUES_EMPTY' });
  });

  it('claims nothing for a slot of limit 0, and a queue named twice takes from it twice', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    for (let i = 0; i < 3; i++) await driver.enqueue(request());
    const slots = [
      { queue: 'q', limit: 0 },
      { queue: 'q', limit: 1 },
      { queue: 'q', limit: 1 },
    ];
    const claimed = await driver.claim({ ...claimArgs, slots });
    expect(new Set(claimed.map((r) => r.id)).size).toBe(2);
  });

  it('a rescuing claim is one pass: its burials come back beside its rows, and a refused one changes nothing', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const doomed = request({ maxAttempts: 1 });
    await driver.enqueue(doomed);
    await driver.claim(claimArgs);
    await clock.advance(1_000);
    const waiting = request();
    await driver.enqueue(waiting);
    // refused before anything moves (the beat it carries names another worker): nothing buried, nothing claimed
    const beat = { id: 'not-w', host: 'h', pid: 1, startedAt: 0, slots: {}, inFlight: [] };
    const refused = driver.claimRescuing(
      { ...claimArgs, presence: { beat, visibilityTimeoutMs: 1_000 } },
      {},
    );
    await expect(refused).rejects.toMatchObject({ code: 'X_INVARIANT' });
    expect((await driver.get(doomed.id))?.state).toBe('running');
    expect((await driver.get(waiting.id))?.state).toBe('ready');
    // the same pass, accepted: the burial is answered apart from the claimed row, in the same answer
    const { claimed, rescued } = await driver.claimRescuing(claimArgs, {});
    expect(claimed.map((row) => row.id)).toEqual([waiting.id]);
    expect(rescued.buried.map((row) => [row.id, row.state])).toEqual([[doomed.id, 'dead']]);
  });
});
