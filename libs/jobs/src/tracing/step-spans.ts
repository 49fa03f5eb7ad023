import type { Span } from '@opentelemetry/api';
import type { StepApi } from '../declare/run-args';
import { StepSuspension } from '../runtime/step-suspension';
import type { Duration } from '../util/duration';
import { activeTracer, otelApi } from './otel';
import { endSpan, recordFailure } from './span-status';

/** Attributes a step span starts with (plain values: no type of the optional peer in a declaration). */
type StepAttributes = Readonly<Record<string, string | number | boolean>>;

/** The step calls a span is opened for. */
type StepKind = 'run' | 'sleep' | 'waitForEvent';

function startStep(kind: StepKind, name: string, attributes: StepAttributes): Span | undefined {
  const otel = otelApi();
  const tracer = activeTracer();
  if (otel === undefined || tracer === undefined) return undefined;
  try {
    return tracer.startSpan(`step.${kind} ${name}`, {
      kind: otel.SpanKind.INTERNAL,
      attributes: { 'jobs.step.name': name, 'jobs.step.kind': kind, ...attributes },
    });
  } catch {
    return undefined;
  }
}

/**
 * Runs one step call inside its own span, a child of the active one (the run's): `call` sees the step span active, so
 * what the step traces nests under it. A suspension (`step.sleep`, `waitForEvent` parking the run) is control flow:
 * recorded as `jobs.step.suspended` and `jobs.step.resume_at`, never as an error; anything else thrown marks the span
 * ERROR and is rethrown.
 */
export async function traceStep<T>(
  kind: StepKind,
  name: string,
  attributes: StepAttributes,
  call: () => Promise<T>,
): Promise<T> {
  const otel = otelApi();
  const span = startStep(kind, name, attributes);
  if (otel === undefined || span === undefined) return call();
  try {
    return await otel.context.with(otel.trace.setSpan(otel.context.active(), span), call);
  } catch (error) {
    if (error instanceof StepSuspension) {
      span.setAttribute('jobs.step.suspended', true);
      span.setAttribute('jobs.step.resume_at', error.resumeAt);
    } else {
      recordFailure(otel, span, error);
    }
    throw error;
  } finally {
    endSpan(span);
  }
}

/**
 * Marks a `step.run` that answered its stored output without calling its function: a span of no length with
 * `jobs.step.replayed` true and the attempt that stored it, so a trace of a retried run still lists every step.
 */
export function traceReplayedStep(name: string, storedByAttempt: number): void {
  const span = startStep('run', name, {
    'jobs.step.replayed': true,
    'jobs.step.stored_by_attempt': storedByAttempt,
  });
  if (span !== undefined) endSpan(span);
}

/**
 * The step API with a span around each `sleep` and `waitForEvent` call (a `step.run` traces itself, since only it
 * knows whether it replayed). Used only when tracing is on: the untraced API is handed out as it was built.
 */
export function tracedStepApi(api: StepApi): StepApi {
  const sleep = (nameOrDuration: string | Duration, maybe?: Duration): Promise<void> => {
    const name = maybe === undefined ? `sleep:${String(nameOrDuration)}` : String(nameOrDuration);
    return traceStep('sleep', name, {}, () =>
      maybe === undefined
        ? api.sleep(nameOrDuration as Duration)
        : api.sleep(nameOrDuration as string, maybe),
    );
  };
  return {
    run: api.run,
    sleep: sleep as StepApi['sleep'],
    waitForEvent: (name, event, options) =>
      traceStep('waitForEvent', name, { 'jobs.step.event': event }, () =>
        api.waitForEvent(name, event, options),
      ),
  };
}
