import type { EnqueueRequest } from '../../driver/job-driver';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import { enqueueRequest } from '../../testing/enqueue-request';
import { uuidv7 } from '../../util/ids';
import type { OutboxRecord, OutboxStore } from '../outbox-store';
import { outboxQuarantineConformance } from './outbox-quarantine.conformance';
import { ids, LEASE, type OutboxSuite } from './outbox-suite';

/** One open transaction of the backend under test. */
export interface OutboxTestTx {
  /** What `stage(request, tx)` is handed. */
  readonly tx: unknown;
  /** Commits the transaction. */
  commit(): Promise<void>;
  /** Rolls the transaction back. */
  rollback(): Promise<void>;
}

/** The store under test over EMPTY storage, deciding leases on the clock it was built with. */
export interface OutboxStoreUnderTest {
  /** The store under test. */
  readonly store: OutboxStore;
  /** Opens a transaction of the store's backend. */
  begin(): Promise<OutboxTestTx>;
  /** Frees what `make` opened; called after each test. */
  close?(): Promise<void>;
}

/** Builds the store under test. Called once per test. */
export type MakeOutboxStore = (clock: FrozenClock) => Promise<OutboxStoreUnderTest>;

let n = 0;

/** A request with fresh ids, as `prepareEnqueue` mints them, on `outbox-q` with a nested input unique per call. */
export function outboxRequest(overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
  return enqueueRequest({
    name: 'outbox.conformance',
    queue: 'outbox-q',
    input: { n: ++n, nested: { list: [1, 'two', null] } },
    runAt: Date.UTC(2026, 0, 1),
    ...overrides,
  });
}

/**
 * The behaviour every `OutboxStore` must have, as one suite each implementation's own test calls (the memory store
 * here; the Postgres one beside its driver): a claim is a lease, rows come in staging order and a transaction's rows
 * never out of it, and every mutation after the claim is fenced on the claimant.
 */
export function outboxStoreConformance(name: string, make: MakeOutboxStore): void {
  describe(`OutboxStore conformance: ${name}`, () => {
    let clock: FrozenClock;
    let under: OutboxStoreUnderTest;
    let store: OutboxStore;
    beforeEach(async () => {
      clock = frozenClock();
      under = await make(clock);
      store = under.store;
    });
    afterEach(async () => {
      await under.close?.();
    });

    const claim = (claimant: string, limit = 10): Promise<readonly OutboxRecord[]> =>
      store.claim({ claimant, limit, leaseMs: LEASE });
    const stageAll = async (count: number, tx?: unknown): Promise<EnqueueRequest[]> => {
      const staged: EnqueueRequest[] = [];
      for (let i = 0; i < count; i++) {
        const request = outboxRequest();
        await store.stage(request, tx);
        staged.push(request);
      }
      return staged;
    };
    const inTx = async (count: number): Promise<EnqueueRequest[]> => {
      const tx = await under.begin();
      const staged = await stageAll(count, tx.tx);
      await tx.commit();
      return staged;
    };
    const suite: OutboxSuite = {
      get clock() {
        return clock;
      },
      get under() {
        return under;
      },
      get store() {
        return store;
      },
      claim,
      stageAll,
      inTx,
    };

    it('stages outside a transaction: claimable at once, the request round-trips', async () => {
      const request = outboxRequest({ tenantId: 'org-1', concurrencyKey: 'ck', priority: 3 });
      await store.stage(request);
      expect(await store.retained()).toBe(1);
      const [record, ...rest] = await claim('relay-a');
      expect(rest).toEqual([]);
      expect(record).toMatchObject({
        id: request.id,
        request,
        claimedBy: 'relay-a',
        claimedAt: clock.now(),
        attempts: 0,
      });
      expect(typeof record?.stagedAt).toBe('number');
    });

    it('keeps a row staged in a transaction invisible until commit; a rollback leaves nothing', async () => {
      const open = await under.begin();
      const [first] = await stageAll(1, open.tx);
      expect(await claim('relay-a')).toEqual([]);
      expect(await store.retained()).toBe(0);
      await open.commit();
      expect(ids(await claim('relay-a'))).toEqual([first?.id]);

      const doomed = await under.begin();
      await stageAll(2, doomed.tx);
      await doomed.rollback();
      expect(await store.retained()).toBe(1);
      await clock.advance(LEASE);
      expect(ids(await claim('relay-b'))).toEqual([first?.id]);
    });

    it('claims a transaction that commits late: staged first, committed after a later one was published', async () => {
      // a relay that followed "after the last id I saw" would skip this row for ever
      const late = await under.begin();
      const [first] = await stageAll(1, late.tx);
      const [second] = await inTx(1);
      expect(ids(await claim('relay-a'))).toEqual([second?.id]);
      expect(await store.markPublished([second?.id ?? ''], 'relay-a')).toBe(1);
      expect(await claim('relay-a')).toEqual([]);
      await late.commit();
      expect(ids(await claim('relay-a'))).toEqual([first?.id]);
    });

    it('claims in staging order, at most limit rows at a time', async () => {
      const staged = await stageAll(5);
      expect(ids(await claim('relay-a', 2))).toEqual(staged.slice(0, 2).map((r) => r.id));
      expect(ids(await claim('relay-b', 10))).toEqual(staged.slice(2).map((r) => r.id));
      expect(await claim('relay-c')).toEqual([]);
    });

    it('claims a lease: no other claimant takes a held row until it lapses', async () => {
      const staged = await stageAll(3);
      await claim('relay-a');
      expect(await claim('relay-b')).toEqual([]);
      await clock.advance(LEASE - 1);
      expect(await claim('relay-b')).toEqual([]);
      await clock.advance(1);
      const retaken = await claim('relay-b');
      expect(ids(retaken)).toEqual(staged.map((r) => r.id));
      expect(retaken.every((r) => r.claimedBy === 'relay-b' && r.claimedAt === clock.now())).toBe(
        true,
      );
    });

    it('retires published rows, fenced on the claimant', async () => {
      await stageAll(3);
      const held = ids(await claim('relay-a'));
      expect(await store.markPublished(held, 'relay-b')).toBe(0);
      expect(await store.retained()).toBe(3);
      expect(await store.markPublished(held, 'relay-a')).toBe(3);
      expect(await store.retained()).toBe(0);
      expect(await store.markPublished(held, 'relay-a')).toBe(0);
      // a published row is nobody's to hand back: the release is a no-op
      expect(await store.release(held, 'relay-a')).toBe(0);
      await clock.advance(LEASE * 2);
      expect(await claim('relay-b')).toEqual([]);
    });

    it('releases rows at once, fenced on the claimant, recording the failure on its row', async () => {
      const staged = await stageAll(3);
      const held = ids(await claim('relay-a'));
      expect(await store.release(held, 'relay-b')).toBe(0);
      expect(await claim('relay-b')).toEqual([]);
      const failed = staged[0]?.id ?? '';
      expect(await store.release(held, 'relay-a', { id: failed, error: 'boom\u0000' })).toBe(3);
      const back = await claim('relay-b');
      expect(ids(back)).toEqual(staged.map((r) => r.id));
      expect(back.map((r) => r.attempts)).toEqual([1, 0, 0]);
    });

    it('leaves a claimant that stalled past its lease owning nothing', async () => {
      const staged = await stageAll(2);
      const stale = ids(await claim('relay-a'));
      await clock.advance(LEASE);
      expect(ids(await claim('relay-b'))).toEqual(staged.map((r) => r.id));
      // the stalled relay wakes: its late release and its late retire are both no-ops
      expect(await store.release(stale, 'relay-a')).toBe(0);
      expect(await store.markPublished(stale, 'relay-a')).toBe(0);
      expect(await claim('relay-c')).toEqual([]);
      expect(await store.retained()).toBe(2);
      expect(await store.markPublished(stale, 'relay-b')).toBe(2);
      expect(await store.retained()).toBe(0);
    });

    it("never claims a transaction's later rows while an earlier one is held elsewhere", async () => {
      const [r1, r2, r3] = await inTx(3);
      const [solo] = await stageAll(1);
      expect(ids(await claim('relay-a', 1))).toEqual([r1?.id]);
      // r2 and r3 wait behind r1; the row of another transaction does not
      expect(ids(await claim('relay-b'))).toEqual([solo?.id]);
      expect(await claim('relay-c')).toEqual([]);
      expect(await store.markPublished([r1?.id ?? ''], 'relay-a')).toBe(1);
      expect(ids(await claim('relay-c'))).toEqual([r2?.id, r3?.id]);
    });

    it('claims a transaction in order across a limit, and hands a released one back whole', async () => {
      const staged = await inTx(4);
      const first = ids(await claim('relay-a', 2));
      expect(first).toEqual(staged.slice(0, 2).map((r) => r.id));
      expect(await claim('relay-b')).toEqual([]);
      expect(await store.release(first, 'relay-a')).toBe(2);
      expect(ids(await claim('relay-b'))).toEqual(staged.map((r) => r.id));
    });

    /** Requests whose ids sort in the order given, as `enqueueMany` mints them. */
    const batch = (count: number): EnqueueRequest[] => {
      const requests = Array.from({ length: count }, () => outboxRequest());
      const sorted = requests.map((r) => r.id).sort();
      return requests.map((r, i) => ({ ...r, id: sorted[i] ?? r.id }));
    };

    it('stageMany: one write in the caller transaction, after what it staged before, in the order given', async () => {
      const open = await under.begin();
      const [before] = await stageAll(1, open.tx);
      const many = batch(4);
      await store.stageMany(many, open.tx);
      expect(await store.retained()).toBe(0);
      await open.commit();
      expect(await store.retained()).toBe(5);
      const claimed = await claim('relay-a');
      expect(ids(claimed)).toEqual([before?.id, ...many.map((r) => r.id)]);
      expect(claimed.slice(1).map((r) => r.request)).toEqual(many);
    });

    it('stageMany: a rollback drops the whole batch; an empty batch writes nothing', async () => {
      const doomed = await under.begin();
      await store.stageMany(batch(3), doomed.tx);
      await doomed.rollback();
      await store.stageMany([]);
      expect(await store.retained()).toBe(0);
      const many = batch(2);
      await store.stageMany(many);
      expect(ids(await claim('relay-a'))).toEqual(many.map((r) => r.id));
    });

    it('hands every claimed row its transaction key: shared within a transaction, distinct across', async () => {
      const tx = await inTx(2);
      const [solo1, solo2] = await stageAll(2);
      const keyOf = new Map((await claim('relay-a')).map((r) => [r.id, r.txKey]));
      expect(keyOf.get(tx[0]?.id ?? '')).toBe(keyOf.get(tx[1]?.id ?? ''));
      const keys = [tx[0], solo1, solo2].map((r) => keyOf.get(r?.id ?? ''));
      expect(keys.every((k) => typeof k === 'string' && k.length > 0)).toBe(true);
      expect(new Set(keys).size).toBe(3);
    });

    outboxQuarantineConformance(suite);

    it('answers 0 for ids it does not hold', async () => {
      expect(await store.markPublished([uuidv7()], 'relay-a')).toBe(0);
      expect(await store.release([uuidv7()], 'relay-a')).toBe(0);
      expect(await store.markPublished([], 'relay-a')).toBe(0);
      expect(await store.retained()).toBe(0);
    });
  });
}
