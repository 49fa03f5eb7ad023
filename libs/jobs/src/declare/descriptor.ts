import type { ResolvedConcurrency } from './concurrency';
import type { ResolvedRetryPolicy } from './retry-policy';

/** The JSON-serialisable manifest row of one job. */
export interface JobDescriptor {
  readonly kind: 'job';
  readonly name: string;
  readonly queue: string;
  /** `'input'` when the tenant is derived from the input, `'none'` when the job belongs to no tenant. */
  readonly tenant: 'input' | 'none';
  readonly retry: ResolvedRetryPolicy;
  readonly timeoutMs: number | null;
  readonly stepTimeoutMs: number | null;
  readonly eventPollMs: number;
  readonly priority: number;
  readonly concurrency: ResolvedConcurrency | null;
  /** The vendor of the input schema (`ultimat3`, `zod`, …). */
  readonly inputVendor: string;
  /** The declared `redact:` dot paths into the input, which operator surfaces show as `'[redacted]'`. */
  readonly redact: readonly string[];
  /** Whether the declaration carries its own `run` (otherwise a `@Job` method binds it). */
  readonly inline: boolean;
}
