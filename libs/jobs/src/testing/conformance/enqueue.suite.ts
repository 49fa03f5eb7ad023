import type { JobState } from '../../driver/job-row';
import { LATER, Q, type Harness } from './harness';

const LIVE: readonly JobState[] = ['ready', 'delayed', 'running', 'suspended'];
const FINISHED: readonly JobState[] = ['done', 'failed', 'dead'];

/** enqueue / enqueueMany: the row written, and every way a second enqueue meets the first. */
export function enqueueSuite(h: Harness): void {
  describe('enqueue', () => {
    it('inserts a ready row at attempt 0 carrying every field of the request', async () => {
      const request = h.request({
        input: { orderId: 'o-1', lines: [1, 2] },
        tenantId: 'org-1',
        enqueuedBy: 'user-1',
        maxAttempts: 5,
        priority: 3,
        concurrencyKey: 'acct-1',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        crossTenantReason: 'support ticket 42',
      });
      const result = await h.driver().enqueue(request);
      expect(result).toEqual({ id: request.id, runId: request.runId, deduped: false });

      const row = await h.driver().get(request.id);
      expect(row).toMatchObject({
        id: request.id,
        runId: request.runId,
        name: request.name,
        queue: Q,
        input: { orderId: 'o-1', lines: [1, 2] },
        idempotencyKey: request.idempotencyKey,
        tenantId: 'org-1',
        enqueuedBy: 'user-1',
        state: 'ready',
        attempt: 0,
        maxAttempts: 5,
        priority: 3,
        runAt: request.runAt,
        workerId: null,
        claim: null,
        leaseExpiresAt: null,
        lastError: null,
        progress: null,
        concurrencyKey: 'acct-1',
        traceparent: request.traceparent,
        crossTenantReason: 'support ticket 42',
        finishedAt: null,
      });
      expect(typeof row?.createdAt).toBe('number');
      expect(typeof row?.updatedAt).toBe('number');
    });

    it('answers undefined from get() for an id nobody enqueued', async () => {
      expect(await h.driver().get(h.newId())).toBeUndefined();
    });

    it('makes a row due in the future delayed, and one due now or earlier ready', async () => {
      const now = h.clock().now();
      const later = await h.enqueue({ runAt: now + LATER });
      const exact = await h.enqueue({ runAt: now });
      const past = await h.enqueue({ runAt: now - 1_000 });
      expect((await h.driver().get(later.id))?.state).toBe('delayed');
      expect((await h.driver().get(exact.id))?.state).toBe('ready');
      expect((await h.driver().get(past.id))?.state).toBe('ready');
    });

    it('stores the input, not a reference to the caller’s object', async () => {
      const input = { list: [1] };
      const request = await h.enqueue({ input });
      input.list.push(2);
      expect((await h.driver().get(request.id))?.input).toEqual({ list: [1] });
    });

    describe('the same id', () => {
      it('while the row is live inserts nothing and answers the original ids', async () => {
        const first = await h.enqueue();
        const again = h.request({ id: first.id, idempotencyKey: 'another-key' });
        expect(await h.driver().enqueue(again)).toEqual({
          id: first.id,
          runId: first.runId,
          deduped: true,
        });
        expect((await h.driver().get(first.id))?.idempotencyKey).toBe(first.idempotencyKey);
      });

      it.each(FINISHED)(
        'after the job finished (%s) inserts nothing and answers the original ids',
        async (state) => {
          const first = await h.rowIn(state);
          const result = await h.driver().enqueue(h.request({ id: first.id }));
          expect(result).toEqual({ id: first.id, runId: first.runId, deduped: true });
          expect((await h.driver().get(first.id))?.state).toBe(state);
          expect((await h.driver().stats()).reduce((n, s) => n + s[state], 0)).toBe(1);
        },
      );

      it("dedupes under onConflict: 'error' too: a republish meets its own job", async () => {
        const first = await h.enqueue({ onConflict: 'error' });
        await expect(h.driver().enqueue(first)).resolves.toEqual({
          id: first.id,
          runId: first.runId,
          deduped: true,
        });
      });
    });

    describe('the same idempotency key', () => {
      it.each(LIVE)('held by a %s row answers the holder’s ids and inserts nothing', async (s) => {
        const holder = await h.rowIn(s, { idempotencyKey: 'k' });
        const second = h.request({ idempotencyKey: 'k' });
        expect(await h.driver().enqueue(second)).toEqual({
          id: holder.id,
          runId: holder.runId,
          deduped: true,
        });
        expect(await h.driver().get(second.id)).toBeUndefined();
      });

      it.each(LIVE)(
        "held by a %s row is X_JOB_DUPLICATE under onConflict: 'error'",
        async (state) => {
          await h.rowIn(state, { idempotencyKey: 'k' });
          const second = h.request({ idempotencyKey: 'k', onConflict: 'error' });
          await expect(h.driver().enqueue(second)).rejects.toMatchObject({
            code: 'X_JOB_DUPLICATE',
          });
          expect(await h.driver().get(second.id)).toBeUndefined();
        },
      );

      it.each(FINISHED)('on a %s row does not block a new row', async (state) => {
        const old = await h.rowIn(state, { idempotencyKey: 'k' });
        const next = h.request({ idempotencyKey: 'k', onConflict: 'error' });
        expect(await h.driver().enqueue(next)).toEqual({
          id: next.id,
          runId: next.runId,
          deduped: false,
        });
        expect((await h.driver().get(old.id))?.state).toBe(state);
        expect((await h.driver().get(next.id))?.state).toBe('ready');
      });

      it('under another tenant is another key: two rows', async () => {
        const a = await h.enqueue({ idempotencyKey: 'k', tenantId: 'org-a' });
        const b = h.request({ idempotencyKey: 'k', tenantId: 'org-b' });
        expect((await h.driver().enqueue(b)).deduped).toBe(false);
        expect((await h.driver().get(a.id))?.tenantId).toBe('org-a');
        expect((await h.driver().get(b.id))?.tenantId).toBe('org-b');
      });

      it('under a tenant and under none is two keys', async () => {
        await h.enqueue({ idempotencyKey: 'k', tenantId: 'org-a' });
        expect((await h.driver().enqueue(h.request({ idempotencyKey: 'k' }))).deduped).toBe(false);
      });

      it("treats a null tenant and '' as the same tenant", async () => {
        const first = await h.enqueue({ idempotencyKey: 'k', tenantId: null });
        const result = await h.driver().enqueue(h.request({ idempotencyKey: 'k', tenantId: '' }));
        expect(result).toEqual({ id: first.id, runId: first.runId, deduped: true });
      });

      it('of another job name is another key: two rows', async () => {
        await h.enqueue({ idempotencyKey: 'k', name: 'conformance.a' });
        const b = h.request({ idempotencyKey: 'k', name: 'conformance.b' });
        expect((await h.driver().enqueue(b)).deduped).toBe(false);
      });

      it('in another queue is still the same key', async () => {
        const first = await h.enqueue({ idempotencyKey: 'k', queue: 'q-a' });
        const result = await h.driver().enqueue(h.request({ idempotencyKey: 'k', queue: 'q-b' }));
        expect(result).toEqual({ id: first.id, runId: first.runId, deduped: true });
      });
    });

    it('under 64 concurrent identical enqueues writes one row and answers every caller its id', async () => {
      const requests = Array.from({ length: 64 }, () => h.request({ idempotencyKey: 'burst' }));
      const results = await Promise.all(requests.map((r) => h.driver().enqueue(r)));
      const winner = results.find((r) => !r.deduped);
      expect(results.filter((r) => !r.deduped)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id))).toEqual(new Set([winner?.id]));
      expect(new Set(results.map((r) => r.runId))).toEqual(new Set([winner?.runId]));
      const stats = await h.driver().stats();
      expect(stats.find((s) => s.queue === Q)?.ready).toBe(1);
    });

    it('under 64 concurrent enqueues of one id writes one row', async () => {
      const request = h.request();
      const results = await Promise.all(
        Array.from({ length: 64 }, () => h.driver().enqueue(request)),
      );
      expect(results.filter((r) => !r.deduped)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id))).toEqual(new Set([request.id]));
      expect((await h.driver().stats()).find((s) => s.queue === Q)?.ready).toBe(1);
    });
  });

  describe('enqueueMany', () => {
    it('answers one result per request, in order', async () => {
      const requests = [h.request(), h.request({ runAt: h.clock().now() + LATER }), h.request()];
      const results = await h.driver().enqueueMany(requests);
      expect(results).toEqual(requests.map((r) => ({ id: r.id, runId: r.runId, deduped: false })));
      expect((await h.driver().get(requests[1]!.id))?.state).toBe('delayed');
    });

    it('answers [] for no requests', async () => {
      expect(await h.driver().enqueueMany([])).toEqual([]);
    });

    it('dedupes a later request of the batch against an earlier one, by key and by id', async () => {
      const first = h.request({ idempotencyKey: 'k' });
      const byKey = h.request({ idempotencyKey: 'k' });
      const byId = h.request({ id: first.id, idempotencyKey: 'other' });
      const results = await h.driver().enqueueMany([first, byKey, byId]);
      const original = { id: first.id, runId: first.runId };
      expect(results).toEqual([
        { ...original, deduped: false },
        { ...original, deduped: true },
        { ...original, deduped: true },
      ]);
      expect(await h.driver().get(byKey.id)).toBeUndefined();
    });

    it('dedupes against rows already stored', async () => {
      const stored = await h.enqueue({ idempotencyKey: 'k' });
      const fresh = h.request();
      const results = await h.driver().enqueueMany([h.request({ idempotencyKey: 'k' }), fresh]);
      expect(results).toEqual([
        { id: stored.id, runId: stored.runId, deduped: true },
        { id: fresh.id, runId: fresh.runId, deduped: false },
      ]);
    });

    it("is X_JOB_DUPLICATE when a request under onConflict: 'error' meets a live key", async () => {
      await h.enqueue({ idempotencyKey: 'k' });
      const batch = [h.request({ idempotencyKey: 'k', onConflict: 'error' })];
      await expect(h.driver().enqueueMany(batch)).rejects.toMatchObject({
        code: 'X_JOB_DUPLICATE',
      });
    });

    it('refused by a conflict, writes none of its rows and takes away none of the rows it deduped against', async () => {
      const held = await h.enqueue({ idempotencyKey: 'held' });
      const other = await h.enqueue({ idempotencyKey: 'other' });
      const fresh = h.request();
      const batch = [
        h.request({ idempotencyKey: 'other' }),
        fresh,
        h.request({ idempotencyKey: 'held', onConflict: 'error' }),
      ];
      await expect(h.driver().enqueueMany(batch)).rejects.toMatchObject({
        code: 'X_JOB_DUPLICATE',
      });
      expect(await h.driver().get(fresh.id)).toBeUndefined();
      expect(await h.driver().get(other.id)).toMatchObject({
        state: 'ready',
        idempotencyKey: 'other',
      });
      expect(await h.driver().get(held.id)).toMatchObject({
        state: 'ready',
        idempotencyKey: 'held',
      });
    });
  });
}
