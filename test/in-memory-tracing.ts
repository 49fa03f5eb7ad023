import { context, trace, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** An OpenTelemetry SDK registered globally for one test file, exporting every ended span to memory. */
export interface InMemoryTracing {
  /** A tracer of the registered provider, for the spans a test opens itself (an HTTP request's). */
  readonly tracer: Tracer;
  /** Every span ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The one ended span named `name`; throws naming the spans there are when there is not exactly one. */
  span(name: string): ReadableSpan;
  /** Forgets the spans ended so far. */
  reset(): void;
  /** Unregisters the provider and the context manager. */
  stop(): Promise<void>;
}

/**
 * Registers a `BasicTracerProvider` with an in-memory exporter and the async-hooks context manager — what an app's
 * `NodeSDK` would register, minus the network — as the API's global provider and context manager.
 */
export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  trace.setGlobalTracerProvider(provider);
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return {
    tracer: trace.getTracer('test'),
    spans,
    span(name) {
      const found = spans().filter((s) => s.name === name);
      if (found.length !== 1) {
        const names = spans().map((s) => s.name);
        throw new Error(`${found.length} spans named "${name}" among ${JSON.stringify(names)}`);
      }
      return found[0] as ReadableSpan;
    },
    reset: () => exporter.reset(),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/** The span's parent span id, or undefined for a root. */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** Runs `fn` inside a new active span named `name`, ending the span when `fn` settles. */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, async (span) => {
    try {
      return await fn(span);
    } finally {
      span.end();
    }
  });
}

/**
 * Within the enclosing `describe`: the in-memory SDK registered before its first test and unregistered after its
 * last, its spans forgotten before each test. What it answers reads the SDK registered now.
 */
export function inMemoryTracingEach(): InMemoryTracing {
  let registered: InMemoryTracing | undefined;
  beforeAll(() => {
    registered = startInMemoryTracing();
  });
  afterAll(async () => {
    await registered?.stop();
    registered = undefined;
  });
  beforeEach(() => registered?.reset());
  const now = (): InMemoryTracing => {
    if (registered === undefined)
      throw new Error('inMemoryTracingEach is read inside its describe only');
    return registered;
  };
  return {
    get tracer() {
      return now().tracer;
    },
    spans: () => now().spans(),
    span: (name) => now().span(name),
    reset: () => now().reset(),
    stop: () => now().stop(),
  };
}
