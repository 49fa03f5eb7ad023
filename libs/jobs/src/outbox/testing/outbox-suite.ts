import type { EnqueueRequest } from '../../driver/job-driver';
import type { FrozenClock } from '../../testing/frozen-clock';
import type { OutboxRecord, OutboxStore } from '../outbox-store';
import type { OutboxStoreUnderTest } from './outbox-store.conformance';

/** The lease every conformance claim takes. */
export const LEASE = 30_000;

/** The ids of claimed records, in order. */
export const ids = (records: readonly OutboxRecord[]): string[] => records.map((r) => r.id);

/** What the outbox conformance tests share: the current test's store and clock, and the steps they repeat. */
export interface OutboxSuite {
  /** The current test's clock, store and backend (read them inside a test, never at registration). */
  readonly clock: FrozenClock;
  readonly under: OutboxStoreUnderTest;
  readonly store: OutboxStore;
  /** Claims up to `limit` rows (10 unless told) for `claimant` with the suite's lease. */
  claim(claimant: string, limit?: number): Promise<readonly OutboxRecord[]>;
  /** Stages `count` fresh requests, in `tx` when one is given. */
  stageAll(count: number, tx?: unknown): Promise<EnqueueRequest[]>;
  /** Stages `count` fresh requests in one committed transaction. */
  inTx(count: number): Promise<EnqueueRequest[]>;
}
