import type { JobRow } from '../../driver/job-row';
import { idsOf, LATER, Q, VT, WORKER, type Harness } from './harness';

const OLD = 'conformance.old';
const NEW = 'conformance.new';
const OTHER = 'conformance.other';

/**
 * claim by name (`ClaimSlot.names`): a worker is handed only the jobs it serves, so a job a newer build added waits,
 * unattempted, for a worker that knows it — the rolling-deploy guarantee.
 */
export function namesSuite(h: Harness): void {
  describe('claim by name', () => {
    it('hands out only the served names; a row of another name stays ready, unattempted', async () => {
      const now = h.clock().now();
      // the unserved row is first in claim order: it must be passed over, not block the queue
      const unserved = await h.enqueue({ name: NEW, priority: 0, runAt: now - LATER });
      const served = await h.enqueue({ name: OLD, priority: 5 });
      expect(idsOf(await h.claim({ names: [OLD] }))).toEqual([served.id]);
      expect(await h.claim({ names: [OLD] })).toEqual([]);
      expect(await h.driver().get(unserved.id)).toMatchObject({
        state: 'ready',
        attempt: 0,
        workerId: null,
        claim: null,
        lastError: null,
      });
      expect(idsOf(await h.claim({ names: [NEW], workerId: 'worker-new' }))).toEqual([unserved.id]);
    });

    it('merges the served names in claim order — priority, run time, id — and skips the rest', async () => {
      const now = h.clock().now();
      const x1 = await h.enqueue({ name: OLD, priority: 3, runAt: now - 3_000 });
      const y1 = await h.enqueue({ name: NEW, priority: 1, runAt: now - 1_000 });
      await h.enqueue({ name: OTHER, priority: 0, runAt: now - 9_000 });
      const x2 = await h.enqueue({ name: OLD, priority: 1, runAt: now - 2_000 });
      const y2 = await h.enqueue({ name: NEW, priority: 3, runAt: now - 4_000 });
      const order: string[] = [];
      for (let i = 0; i < 5; i++)
        order.push(...idsOf(await h.claim({ limit: 1, names: [OLD, NEW] })));
      expect(order).toEqual([x2.id, y1.id, y2.id, x1.id]);
    });

    it('takes limit + ahead across the served names in claim order, and leaves the rest ready', async () => {
      const now = h.clock().now();
      const rows = [];
      // interleaved run times: the first five in claim order hold both names
      for (let i = 0; i < 10; i++) {
        rows.push(await h.enqueue({ name: i % 2 === 0 ? OLD : NEW, runAt: now - 10_000 + i }));
      }
      const claimed = await h.driver().claim({
        workerId: WORKER,
        visibilityTimeoutMs: VT,
        slots: [{ queue: Q, limit: 2, ahead: 3, names: [OLD, NEW] }],
      });
      expect(idsOf(claimed)).toEqual(idsOf(rows.slice(0, 5)));
      for (const row of rows.slice(5)) {
        expect((await h.driver().get(row.id))?.state).toBe('ready');
      }
    });

    it('takes nothing from a slot serving no name', async () => {
      const row = await h.enqueue({ name: OLD });
      expect(await h.claim({ names: [] })).toEqual([]);
      expect((await h.driver().get(row.id))?.state).toBe('ready');
    });

    it('takes every name when the slot names none (names absent)', async () => {
      const a = await h.enqueue({ name: OLD });
      const b = await h.enqueue({ name: NEW });
      expect(idsOf(await h.claim())).toEqual(idsOf([a, b]));
    });

    it('serves, for a queue named by two slots, the names of both', async () => {
      const a = await h.enqueue({ name: OLD });
      const b = await h.enqueue({ name: NEW });
      await h.enqueue({ name: OTHER });
      const claimed = await h.driver().claim({
        workerId: WORKER,
        visibilityTimeoutMs: VT,
        slots: [
          { queue: Q, limit: 2, names: [OLD] },
          { queue: Q, limit: 2, names: [NEW] },
        ],
      });
      expect(idsOf(claimed)).toEqual(idsOf([a, b]));
    });

    it('does not re-take a lapsed lease of a name it does not serve; a claim serving it does', async () => {
      const row = await h.running({ name: NEW }, { visibilityTimeoutMs: 1_000, names: [NEW] });
      await h.clock().advance(1_000);
      expect(await h.claim({ names: [OLD], workerId: 'worker-old', rescue: true })).toEqual([]);
      expect(await h.driver().get(row.id)).toMatchObject({ state: 'running', claim: row.claim });
      const [again] = await h.claim({ names: [NEW], workerId: 'worker-new', rescue: true });
      expect(again).toMatchObject({ id: row.id, attempt: 2, workerId: 'worker-new' });
    });

    it('buries a lapsed final attempt of a served name at once, of another only a visibility timeout later', async () => {
      const served = await h.running({ name: OLD, maxAttempts: 1 }, { visibilityTimeoutMs: 1_000 });
      const unserved = await h.running(
        { name: NEW, maxAttempts: 1 },
        { visibilityTimeoutMs: 1_000 },
      );
      await h.clock().advance(1_000);
      const told: JobRow[] = [];
      const rescuing = async (): Promise<void> => {
        const { claimed, rescued } = await h.rescuing({ names: [OLD] });
        expect(claimed).toEqual([]);
        told.push(...rescued.buried);
      };
      await rescuing();
      expect(idsOf(told)).toEqual([served.id]);
      expect((await h.driver().get(unserved.id))?.state).toBe('running');
      await h.clock().advance(VT - 1);
      await rescuing();
      expect((await h.driver().get(unserved.id))?.state).toBe('running');
      await h.clock().advance(1);
      await rescuing();
      expect(idsOf(told)).toEqual(idsOf([served, unserved]));
      expect(await h.driver().get(unserved.id)).toMatchObject({
        state: 'dead',
        lastError: 'LEASE_LAPSED_FINAL_ATTEMPT',
      });
    });

    it('skips excluded tenants among the served names', async () => {
      await h.enqueue({ name: OLD, tenantId: 'tenant-full' });
      const other = await h.enqueue({ name: NEW, tenantId: 'tenant-other' });
      const claimed = await h.claim({ names: [OLD, NEW], excludeTenants: ['tenant-full'] });
      expect(idsOf(claimed)).toEqual([other.id]);
    });
  });
}
