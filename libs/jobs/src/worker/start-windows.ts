import type { Clock } from '../util/clock';

/**
 * The runs each tenant started within the last `windowMs`, for `limits.ratePerTenant`. A tenant's starts are read
 * inside the window only, and a tenant with no start left in it is forgotten: each read drops the tenant's own expired
 * starts, and at most once a window every tenant whose newest start has expired is dropped, so a worker that serves
 * many tenants over its life holds only those that started a run within the last two windows, whoever it meets next.
 * A tenant's list is at most `limit` long (a start is recorded only below it).
 */
export class StartWindows {
  private readonly starts = new Map<string, number[]>();
  private sweptAt: number;

  constructor(
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {
    this.sweptAt = clock.now();
  }

  /** How many runs `tenant` started within the window now. */
  count(tenant: string): number {
    const now = this.clock.now();
    this.sweep(now);
    return this.recent(tenant, now - this.windowMs)?.length ?? 0;
  }

  /** Records a start of `tenant` now. */
  record(tenant: string): void {
    const now = this.clock.now();
    const recent = this.recent(tenant, now - this.windowMs);
    if (recent === undefined) this.starts.set(tenant, [now]);
    else recent.push(now);
  }

  /** The most runs any one tenant started within the window now (0 when none did). */
  most(): number {
    const since = this.clock.now() - this.windowMs;
    let most = 0;
    for (const tenant of [...this.starts.keys()]) {
      most = Math.max(most, this.recent(tenant, since)?.length ?? 0);
    }
    return most;
  }

  /** How many tenants are held: those with a start inside the window, and expired ones not yet swept. */
  get size(): number {
    return this.starts.size;
  }

  /** `tenant`'s starts after `since` (its list, kept), or undefined, forgetting it, when none is. */
  private recent(tenant: string, since: number): number[] | undefined {
    const held = this.starts.get(tenant);
    if (held === undefined) return undefined;
    if (held.every((at) => at > since)) return held;
    const recent = held.filter((at) => at > since);
    if (recent.length === 0) {
      this.starts.delete(tenant);
      return undefined;
    }
    this.starts.set(tenant, recent);
    return recent;
  }

  /** Once a window: drops every tenant whose newest start is outside it. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.windowMs) return;
    this.sweptAt = now;
    const since = now - this.windowMs;
    for (const [tenant, held] of this.starts) {
      if (held.every((at) => at <= since)) this.starts.delete(tenant);
    }
  }
}
