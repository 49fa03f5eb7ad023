import { OptionalPeerMissingError } from '../../errors/declaration-errors';

/**
 * The part of a prom-client `Registry` the module uses — the app's (`new Registry()`, the one
 * `@willsoto/nestjs-prometheus` serves) or prom-client's default `register`. Structural, so the package's types compile
 * in an app without prom-client.
 */
export interface MetricsRegistryLike {
  /** Renders every metric in the exposition format. */
  metrics(): Promise<string>;
  /** The exposition format's content type. */
  readonly contentType: string;
  /** The metric registered under `name`, if any. */
  getSingleMetric(name: string): unknown;
  /** Unregisters the metric named `name`. */
  removeSingleMetric(name: string): void;
}

/** The labels of one series sample. */
type Labels = Record<string, string>;

/** The members of prom-client's metric classes the collectors call. */
export interface PromCounterLike {
  inc(labels: Labels, value?: number): void;
}
export interface PromGaugeLike {
  set(labels: Labels, value: number): void;
  set(value: number): void;
  reset(): void;
  /** Drops one series; with no label values, a label-less gauge's only one (the scrape then shows no sample). */
  remove(...labelValues: string[]): void;
}
export interface PromHistogramLike {
  observe(labels: Labels, value: number): void;
}

interface MetricConfig {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
  readonly registers: readonly MetricsRegistryLike[];
  readonly buckets?: readonly number[];
  collect?(this: PromGaugeLike): Promise<void> | void;
}

/** The classes of prom-client the collectors build, read from the lazily loaded package. */
export interface PromClientPackage {
  readonly register: MetricsRegistryLike;
  readonly Counter: new (config: MetricConfig) => PromCounterLike;
  readonly Gauge: new (config: MetricConfig) => PromGaugeLike;
  readonly Histogram: new (config: MetricConfig) => PromHistogramLike;
}

export const PROM_CLIENT_PACKAGE = 'prom-client';

/**
 * Loads prom-client when an app asks for metrics (`forRoot({ metrics })`), never at module load. Missing, it is
 * `X_PEER_MISSING` with the install line.
 */
export function loadPromClient(
  load: () => unknown = () =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when asked for
    require(PROM_CLIENT_PACKAGE) as unknown,
): PromClientPackage {
  try {
    return load() as PromClientPackage;
  } catch (cause) {
    throw new OptionalPeerMissingError(
      'JobsModule.forRoot({ metrics })',
      [PROM_CLIENT_PACKAGE],
      cause,
    );
  }
}
