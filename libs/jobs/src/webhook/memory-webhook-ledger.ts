import { InvariantError } from '../errors/runtime-errors';
import {
  webhookAttemptsLimit,
  type WebhookAttempt,
  type WebhookDisable,
  type WebhookLedger,
} from './webhook-ledger';

/** Options of {@link memoryWebhookLedger}. */
export interface MemoryWebhookLedgerOptions {
  /** Attempts kept, across every endpoint; the oldest is dropped past it (default 1,000). */
  readonly capacity?: number;
}

/** A {@link WebhookLedger} in one heap, with what it disabled readable for tests. */
export interface MemoryWebhookLedger extends WebhookLedger {
  /** The endpoints disabled now, and why. */
  disabled(): ReadonlyMap<string, WebhookDisable>;
}

/**
 * A ledger in this process's heap: a bounded ring of attempts plus a count and a verdict per endpoint. Dev and tests
 * only — a second process sees none of it, and a restart re-enables everything.
 */
export function memoryWebhookLedger(options: MemoryWebhookLedgerOptions = {}): MemoryWebhookLedger {
  const capacity = options.capacity ?? 1_000;
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new InvariantError(
      `memoryWebhookLedger: capacity must be a whole number of at least 1 (got ${String(capacity)}).`,
    );
  }
  const ring: WebhookAttempt[] = [];
  const failures = new Map<string, number>();
  const off = new Map<string, WebhookDisable>();
  return {
    record(attempt) {
      ring.push({ ...attempt });
      if (ring.length > capacity) ring.shift();
      const count =
        attempt.outcome === 'delivered' ? 0 : (failures.get(attempt.endpointId) ?? 0) + 1;
      failures.set(attempt.endpointId, count);
      return Promise.resolve(count);
    },
    isDisabled: (endpointId) => Promise.resolve(off.has(endpointId)),
    disable(endpointId, disable) {
      if (!off.has(endpointId)) off.set(endpointId, { ...disable });
      return Promise.resolve();
    },
    enable(endpointId) {
      off.delete(endpointId);
      failures.delete(endpointId);
      return Promise.resolve();
    },
    attempts(endpointId, limit) {
      let bounded: number;
      try {
        bounded = webhookAttemptsLimit(limit);
      } catch (error) {
        return Promise.reject(error as Error);
      }
      const mine = ring.filter((a) => a.endpointId === endpointId).reverse();
      // copies, as a stored ledger answers: a caller editing what it read must not edit the ledger
      return Promise.resolve(mine.slice(0, bounded).map((a) => ({ ...a })));
    },
    disabled: () => new Map([...off].map(([id, d]) => [id, { ...d }])),
  };
}
