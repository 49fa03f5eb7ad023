import type * as OtelApi from '@opentelemetry/api';

/** `@opentelemetry/api` as loaded. Internal: no public declaration may name the optional peer's types. */
export type Otel = typeof OtelApi;

/** The tracer name spans of this package are started under. */
export const TRACER_NAME = '@ultimat3/jobs';

// undefined: not tried yet; null: not installed (tried once, never again)
let api: Otel | null | undefined;
// The API's no-op provider, which its proxy delegates to until an app registers one: a fresh, unregistered proxy
// answers it. Compared by identity, so "is anyone listening" costs no allocation per run.
let noopProvider: unknown;
let cachedDelegate: unknown;
let cachedTracer: OtelApi.Tracer | undefined;

function load(): Otel | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when installed
    const loaded = require('@opentelemetry/api') as Partial<Otel>;
    if (
      typeof loaded.trace?.getTracerProvider !== 'function' ||
      loaded.ProxyTracerProvider === undefined
    )
      return null;
    noopProvider = new loaded.ProxyTracerProvider().getDelegate();
    return loaded as Otel;
  } catch {
    return null;
  }
}

/**
 * `@opentelemetry/api`, or undefined when the app did not install it. Required once, on first use, with plain
 * `require` so that it is the app's own copy: the API keeps its registered provider and context manager in a global
 * slot that every copy of a compatible version shares.
 */
export function otelApi(): Otel | undefined {
  if (api === undefined) api = load();
  return api ?? undefined;
}

/** Whether {@link otelApi} was asked yet (internal: for the spec that it is asked at a job's declaration). */
export function otelTried(): boolean {
  return api !== undefined;
}

/**
 * The package's tracer, or undefined when tracing is off: the API is not installed, or no tracer provider is
 * registered (the API's proxy still delegates to its no-op). Cheap by design — a worker asks once per run: a few
 * property reads, no allocation, until a provider is registered.
 */
export function activeTracer(): OtelApi.Tracer | undefined {
  const otel = api === undefined ? otelApi() : api;
  if (otel === null || otel === undefined) return undefined;
  const provider = otel.trace.getTracerProvider() as OtelApi.TracerProvider & {
    getDelegate?: () => OtelApi.TracerProvider;
  };
  const delegate = typeof provider.getDelegate === 'function' ? provider.getDelegate() : provider;
  if (delegate === noopProvider) return undefined;
  if (delegate !== cachedDelegate) {
    cachedTracer = delegate.getTracer(TRACER_NAME);
    cachedDelegate = delegate;
  }
  return cachedTracer;
}
