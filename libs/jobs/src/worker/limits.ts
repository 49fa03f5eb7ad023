import { InvariantError } from '../errors/runtime-errors';
import type { Clock } from '../util/clock';
import { StartWindows } from './start-windows';

/**
 * Per-PROCESS caps: the fast path, multiplied by your replica count. `perTenant: 2` on twenty pods is forty concurrent
 * runs, and the rate window lives in this heap, so a rolling restart grants every tenant a fresh allowance. Size it
 * as a per-pod budget; `job.concurrency` is the fleet-wide cap.
 */
export interface LimitConfig {
  /** In-flight runs of one tenant in this process. */
  readonly perTenant?: number;
  /** In-flight runs per queue in this process: one number for every queue, or a table. */
  readonly perQueue?: number | Readonly<Record<string, number>>;
  /** In-flight runs in this process, all queues together. */
  readonly global?: number;
  /** Starts per tenant per window, in this process. */
  readonly ratePerTenant?: { readonly limit: number; readonly windowMs: number };
}

/** The part of a row the limits read. */
export interface LimitedRun {
  /** The queue the run was claimed from: counted against `perQueue`. */
  readonly queue: string;
  /** The tenant it runs under, or null for a job with no tenant (exempt from `perTenant` and `ratePerTenant`). */
  readonly tenantId: string | null;
}

/** Counts this process's in-flight runs against a {@link LimitConfig}. */
export interface ProcessLimits {
  /** Takes a place for `run`, or answers which cap refused it. */
  tryAcquire(run: LimitedRun): 'ok' | 'perTenant' | 'perQueue' | 'global' | 'ratePerTenant';
  /** Gives the place back when the run ends. */
  release(run: LimitedRun): void;
  /** Tenants at their `perTenant` cap: the next claim skips their rows, so one tenant's backlog cannot starve others. */
  fullTenants(): string[];
  /** How many more runs of `queue` its `perQueue` cap lets start now (Infinity without one). */
  queueRoom(queue: string): number;
  /**
   * How many more runs the caps every queue shares (`global`, `perTenant`, `ratePerTenant`) let start now whatever
   * the rows' tenants: the most rows a worker can be promised before it knows their tenants (Infinity without caps).
   */
  sharedRoom(): number;
}

function positive(field: string, v: number | undefined): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 1)) {
    throw new InvariantError(`limits.${field} must be a whole number of at least 1 (got ${v}).`);
  }
}

/** Refuses a cap of `config` that is not a whole number ≥ 1, naming it. */
function assertCaps(config: LimitConfig): void {
  positive('perTenant', config.perTenant);
  positive('global', config.global);
  if (typeof config.perQueue === 'number') positive('perQueue', config.perQueue);
  else for (const [q, v] of Object.entries(config.perQueue ?? {})) positive(`perQueue.${q}`, v);
  if (config.ratePerTenant !== undefined) {
    positive('ratePerTenant.limit', config.ratePerTenant.limit);
    positive('ratePerTenant.windowMs', config.ratePerTenant.windowMs);
  }
}

/** Builds the limits of one worker; refuses a cap that is not a whole number ≥ 1. */
export function processLimits(config: LimitConfig, clock: Clock): ProcessLimits {
  assertCaps(config);
  return new InFlightCounts(config, clock);
}

/** The limits {@link processLimits} builds: the runs in flight per tenant, per queue and in all, and the starts. */
class InFlightCounts implements ProcessLimits {
  private readonly byTenant = new Map<string, number>();
  private readonly byQueue = new Map<string, number>();
  /** The starts `ratePerTenant` counts; undefined without that cap. */
  private readonly starts: StartWindows | undefined;
  private total = 0;

  constructor(
    private readonly config: LimitConfig,
    clock: Clock,
  ) {
    const rate = config.ratePerTenant;
    this.starts = rate === undefined ? undefined : new StartWindows(rate.windowMs, clock);
  }

  tryAcquire(run: LimitedRun): 'ok' | 'perTenant' | 'perQueue' | 'global' | 'ratePerTenant' {
    const { config, byTenant, byQueue, starts } = this;
    if (config.global !== undefined && this.total >= config.global) return 'global';
    const qCap = this.queueCap(run.queue);
    if (qCap !== undefined && (byQueue.get(run.queue) ?? 0) >= qCap) return 'perQueue';
    const tenant = run.tenantId ?? '';
    if (
      config.perTenant !== undefined &&
      run.tenantId !== null &&
      (byTenant.get(tenant) ?? 0) >= config.perTenant
    ) {
      return 'perTenant';
    }
    const rate = config.ratePerTenant;
    if (rate !== undefined && starts !== undefined && run.tenantId !== null) {
      if (starts.count(tenant) >= rate.limit) return 'ratePerTenant';
      starts.record(tenant);
    }
    this.total++;
    byQueue.set(run.queue, (byQueue.get(run.queue) ?? 0) + 1);
    byTenant.set(tenant, (byTenant.get(tenant) ?? 0) + 1);
    return 'ok';
  }

  fullTenants(): string[] {
    if (this.config.perTenant === undefined) return [];
    const cap = this.config.perTenant;
    return [...this.byTenant].filter(([t, n]) => t !== '' && n >= cap).map(([t]) => t);
  }

  queueRoom(queue: string): number {
    const cap = this.queueCap(queue);
    return cap === undefined ? Infinity : Math.max(0, cap - (this.byQueue.get(queue) ?? 0));
  }

  sharedRoom(): number {
    const { config } = this;
    let room = config.global === undefined ? Infinity : config.global - this.total;
    if (config.perTenant !== undefined) {
      let most = 0;
      for (const [t, n] of this.byTenant) if (t !== '' && n > most) most = n;
      room = Math.min(room, config.perTenant - most);
    }
    const rate = config.ratePerTenant;
    if (rate !== undefined && this.starts !== undefined) {
      room = Math.min(room, rate.limit - this.starts.most());
    }
    return Math.max(0, room);
  }

  release(run: LimitedRun): void {
    const tenant = run.tenantId ?? '';
    this.total = Math.max(0, this.total - 1);
    this.byQueue.set(run.queue, Math.max(0, (this.byQueue.get(run.queue) ?? 1) - 1));
    const left = (this.byTenant.get(tenant) ?? 1) - 1;
    if (left <= 0) this.byTenant.delete(tenant);
    else this.byTenant.set(tenant, left);
  }

  /** The `perQueue` cap of `queue`, if any. */
  private queueCap(queue: string): number | undefined {
    const { perQueue } = this.config;
    if (typeof perQueue === 'number') return perQueue;
    // own keys only: a queue named `constructor` or `toString` would read Object's member, a function, as its cap
    return perQueue !== undefined && Object.hasOwn(perQueue, queue) ? perQueue[queue] : undefined;
  }
}
