import type { ResolvedConcurrency } from './concurrency';
import type { ResolvedRetryPolicy } from './retry-policy';

/** The JSON-serialisable manifest row of one job. */
export interface JobDescriptor {
  /** Always `'job'`: tells a job's manifest row from a task's. */
  readonly kind: 'job';
  /** The durable queue key. */
  readonly name: string;
  /** The queue the job is enqueued on by default. */
  readonly queue: string;
  /** `'input'` when the tenant is derived from the input, `'none'` when the job belongs to no tenant. */
  readonly tenant: 'input' | 'none';
  /** The retry policy, every default filled in. */
  readonly retry: ResolvedRetryPolicy;
  /** The per-attempt deadline in ms, or null when none is declared. */
  readonly timeoutMs: number | null;
  /** The per-`step.run` deadline in ms, or null when none is declared. */
  readonly stepTimeoutMs: number | null;
  /** How long a `step.waitForEvent` parks between polls, in ms. */
  readonly eventPollMs: number;
  /** The default priority; lower runs first. */
  readonly priority: number;
  /** The fleet-wide concurrency cap, or null when the job declares none. */
  readonly concurrency: ResolvedConcurrency | null;
  /** The vendor of the input schema (`ultimat3`, `zod`, …). */
  readonly inputVendor: string;
  /** The declared `redact:` dot paths into the input, which operator surfaces show as `'[redacted]'`. */
  readonly redact: readonly string[];
  /** Whether the declaration carries its own `run` (otherwise a `@Job` method binds it). */
  readonly inline: boolean;
}
