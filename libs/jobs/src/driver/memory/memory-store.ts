import { InvariantError } from '../../errors/runtime-errors';
import type { Clock } from '../../util/clock';
import type { JsonValue } from '../../util/json';
import type { StepRecord } from '../job-driver';
import { isLiveState, type ClaimRef, type JobRow } from '../job-row';
import type { LeaseHolder } from '../lease-store';

/**
 * The key a live row holds: `(name, tenantId ?? '', idempotencyKey)`, the memory twin of the pg partial unique index
 * over live rows. JSON-encoded so no name, tenant or key can collide with another by containing a separator.
 */
export function liveKeyOf(row: Pick<JobRow, 'name' | 'tenantId' | 'idempotencyKey'>): string {
  return JSON.stringify([row.name, row.tenantId ?? '', row.idempotencyKey]);
}

/** A deep copy of a stored JSON value, made the way a database makes one: through its text form. */
export function cloneJson(value: JsonValue): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** A copy of a row a caller may keep or mutate without reaching the stored one. */
export function copyRow<T extends JobRow>(row: T): T {
  return {
    ...row,
    input: cloneJson(row.input),
    progress: row.progress === null ? null : { ...row.progress },
  };
}

/** A copy of a stored step, for the same reason as {@link copyRow}. */
export function copyStep(step: StepRecord): StepRecord {
  const { output, ...rest } = step;
  // an absent output (a step that returned nothing) stays absent rather than becoming null
  return output === undefined ? rest : { ...rest, output: cloneJson(output) };
}

/** Whether `row` is running under exactly this claim: the fence every write of one attempt passes. */
export function holdsClaim(row: JobRow | undefined, ref: ClaimRef): row is JobRow {
  return (
    row !== undefined &&
    row.state === 'running' &&
    row.claim !== null &&
    row.claim === ref.claim &&
    row.workerId === ref.workerId
  );
}

/** The claim, worker and lease of a row out of `running`: every move out of it clears all three. */
export const UNCLAIMED: Pick<JobRow, 'claim' | 'workerId' | 'leaseExpiresAt'> = {
  claim: null,
  workerId: null,
  leaseExpiresAt: null,
};

/**
 * The state of one memory driver: rows, steps, paused queues and lease slots, with the indexes the operations read.
 * Rows are immutable values replaced on every change, so a row handed out can never move under its holder; every
 * change goes through {@link MemoryStore.put} or {@link MemoryStore.delete}, which keep the indexes true.
 */
export class MemoryStore {
  readonly #rows = new Map<string, JobRow>();
  /** Live key → id of the live row holding it. */
  readonly #liveKeys = new Map<string, string>();
  /** Queue → ids of its rows, so a claim never walks another queue's rows. */
  readonly #queues = new Map<string, Set<string>>();
  /** Job id → its completed steps, in completion order. */
  readonly steps = new Map<string, StepRecord[]>();
  /** Paused queue names: a pause is one entry the claim reads, never a mark on every queued row. */
  readonly paused = new Set<string>();
  /** Lease key → its held slots (expired ones are pruned lazily). */
  readonly leases = new Map<string, LeaseHolder[]>();

  constructor(readonly clock: Clock) {}

  /** The current time of the driver's clock. */
  now(): number {
    return this.clock.now();
  }

  /** The stored row under `id` (not a copy: callers that answer it hand out {@link copyRow} of it). */
  get(id: string): JobRow | undefined {
    return this.#rows.get(id);
  }

  /** Every row, in no particular order. */
  all(): IterableIterator<JobRow> {
    return this.#rows.values();
  }

  /** The rows of one queue, in no particular order. */
  inQueue(queue: string): JobRow[] {
    const ids = this.#queues.get(queue);
    if (!ids) return [];
    const rows: JobRow[] = [];
    for (const id of ids) {
      const row = this.#rows.get(id);
      if (row) rows.push(row);
    }
    return rows;
  }

  /** Every queue that holds at least one row. */
  queues(): string[] {
    return [...this.#queues.keys()];
  }

  /** The live row holding `key`'s `(name, tenant, idempotencyKey)`, if any. */
  liveHolder(key: Pick<JobRow, 'name' | 'tenantId' | 'idempotencyKey'>): JobRow | undefined {
    const id = this.#liveKeys.get(liveKeyOf(key));
    return id === undefined ? undefined : this.#rows.get(id);
  }

  /** Inserts or replaces a row, keeping the live-key and queue indexes true. */
  put(next: JobRow): void {
    const prev = this.#rows.get(next.id);
    if (prev) this.#unindex(prev);
    if (isLiveState(next.state)) {
      const key = liveKeyOf(next);
      const holder = this.#liveKeys.get(key);
      if (holder !== undefined && holder !== next.id) {
        if (prev) this.#index(prev);
        throw new InvariantError(
          `memory driver: job ${next.id} would share live key ${key} with job ${holder}.`,
        );
      }
    }
    this.#rows.set(next.id, next);
    this.#index(next);
  }

  /** Deletes a row and its steps; answers whether it existed. */
  delete(id: string): boolean {
    const row = this.#rows.get(id);
    if (!row) return false;
    this.#unindex(row);
    this.#rows.delete(id);
    this.steps.delete(id);
    return true;
  }

  #index(row: JobRow): void {
    if (isLiveState(row.state)) this.#liveKeys.set(liveKeyOf(row), row.id);
    let ids = this.#queues.get(row.queue);
    if (!ids) {
      ids = new Set();
      this.#queues.set(row.queue, ids);
    }
    ids.add(row.id);
  }

  #unindex(row: JobRow): void {
    const key = liveKeyOf(row);
    if (this.#liveKeys.get(key) === row.id) this.#liveKeys.delete(key);
    const ids = this.#queues.get(row.queue);
    ids?.delete(row.id);
    if (ids?.size === 0) this.#queues.delete(row.queue);
  }
}
