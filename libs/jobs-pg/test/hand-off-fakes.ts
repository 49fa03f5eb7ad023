import type { ClaimedJob, HandOffOffer, WakeHandOff } from '@ultimat3/jobs';
import type { PgExecutor } from '../src/executor/pg-executor';
import type { WakeSession } from '../src/wake/wake-session';

/** A statement a {@link heldSession} was sent, and how to answer it. */
export interface SentStatement {
  readonly text: string;
  readonly values: readonly unknown[];
  answer(): void;
  fail(error: unknown): void;
}

/**
 * A session that answers nothing until told: each statement is kept in `sent` with its own `answer` and `fail`, so a
 * spec can hold a registration's write in flight, or fail it.
 */
export function heldSession(): { session: WakeSession; sent: SentStatement[] } {
  const sent: SentStatement[] = [];
  const session = {
    query(text: string, values: readonly unknown[] = []) {
      return new Promise<unknown>((resolve, reject) => {
        sent.push({
          text,
          values,
          answer: () => resolve({ rows: [] }),
          fail: (error) => reject(error),
        });
      });
    },
  } as unknown as WakeSession;
  return { session, sent };
}

/** A worker's side of the hand-off that offers `offers` (changeable), keeps what it is given, and counts its listeners. */
export function fakeTarget(
  offers: HandOffOffer[] = [{ queue: 'q', free: 4, names: ['n'] }],
): WakeHandOff & {
  taken: ClaimedJob[];
  offered: HandOffOffer[];
  idle: () => void;
  listeners: () => number;
} {
  const listeners = new Set<() => void>();
  const taken: ClaimedJob[] = [];
  const target = {
    workerId: 'w-1',
    visibilityTimeoutMs: 30_000,
    offered: offers,
    offers: () => target.offered,
    takeClaimed: (rows: readonly ClaimedJob[]) => void taken.push(...rows),
    onIdle(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    taken,
    idle: () => listeners.forEach((l) => l()),
    listeners: () => listeners.size,
  };
  return target;
}

/** A handed row's notification payload, as `SQL_ENQUEUE_HAND_OFF` sends it, with the registration's `free_left`. */
export const handedPayload = (id: string, freeLeft: number): string =>
  JSON.stringify({
    id,
    run_id: id,
    name: 'n',
    queue: 'q',
    input: {},
    idempotency_key: id,
    tenant_id: null,
    enqueued_by: null,
    state: 'running',
    attempt: 1,
    max_attempts: 3,
    priority: 0,
    worker_id: 'w-1',
    claim: '11111111-1111-4111-8111-111111111111',
    last_error: null,
    progress: null,
    concurrency_key: null,
    traceparent: null,
    cross_tenant_reason: null,
    run_at: 0,
    created_at: 0,
    updated_at: 0,
    lease_expires_at: 30_000,
    finished_at: null,
    free_left: freeLeft,
  });

/**
 * An executor whose every statement is answered at once, its second parameter (a leave's flush marker) passed to
 * `heard` in a microtask, as the server echoes the marker on the listening session.
 */
export function echoingExecutor(heard: (payload: string) => void): PgExecutor {
  return {
    query(_text, values) {
      queueMicrotask(() => heard(String(values[1])));
      return Promise.resolve({ rows: [], rowCount: 1 });
    },
  };
}
