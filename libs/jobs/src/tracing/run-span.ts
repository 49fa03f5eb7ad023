import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { ClaimedJob } from '../driver/job-row';
import type { JobExecution, JobOutcome } from '../runtime/outcome';
import { activeTracer, otelApi, type Otel } from './otel';
import { endSpan, recordFailure } from './span-status';
import { formatTraceparent, parseTraceparent } from './traceparent';

/** Outcomes a run span reports as ERROR: the attempt failed, or its settle did not land. */
const FAILED: ReadonlySet<JobOutcome> = new Set([
  'retried',
  'dead-lettered',
  'dropped',
  'refused',
  'lost',
]);

/**
 * The W3C `traceparent` of the span active where `enqueue()` was called, or null: no `@opentelemetry/api`, no active
 * span, or one whose context is invalid (the non-recording span the API hands out with no provider registered). Any
 * valid span context is stamped, sampled or not: its flags carry the sampling decision to the run.
 */
export function activeTraceparent(): string | null {
  const otel = otelApi();
  if (otel === undefined) return null;
  const span = otel.trace.getSpan(otel.context.active());
  if (span === undefined) return null;
  const spanContext = span.spanContext();
  return otel.isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : null;
}

/** Whether runs and steps open spans: `@opentelemetry/api` is installed and a tracer provider is registered. */
export function tracingOn(): boolean {
  return activeTracer() !== undefined;
}

/**
 * The context a run's span starts under: the row's traceparent as a remote parent, else a root. Never the context the
 * worker's loop happens to be in — a claim woken from inside a request would otherwise hang its run off that request.
 */
function runParent(otel: Otel, traceparent: string | null): Context {
  const parent = parseTraceparent(traceparent);
  if (parent === undefined) return otel.ROOT_CONTEXT;
  return otel.trace.setSpanContext(otel.ROOT_CONTEXT, { ...parent, isRemote: true });
}

function runAttributes(claimed: ClaimedJob): Attributes {
  const attributes: Attributes = {
    'jobs.job.name': claimed.name,
    'jobs.job.id': claimed.id,
    'jobs.run.id': claimed.runId,
    'jobs.attempt': claimed.attempt,
    'jobs.max_attempts': claimed.maxAttempts,
    'jobs.queue': claimed.queue,
  };
  if (claimed.tenantId !== null) attributes['jobs.tenant'] = claimed.tenantId;
  return attributes;
}

function settled(otel: Otel, span: Span, execution: JobExecution): JobExecution {
  try {
    span.setAttribute('jobs.outcome', execution.outcome);
    if (execution.stopReason !== undefined)
      span.setAttribute('jobs.stop_reason', execution.stopReason);
    if (execution.resumeAt !== undefined) span.setAttribute('jobs.resume_at', execution.resumeAt);
  } catch {
    // tracing never fails a run
  }
  if (FAILED.has(execution.outcome)) {
    if (execution.error !== undefined) recordFailure(otel, span, execution.error);
    else recordFailure(otel, span, `attempt ${execution.outcome}: its settle did not land`);
  }
  endSpan(span);
  return execution;
}

/**
 * Runs one attempt inside its span — kind CONSUMER, named `job <name>`, a child of the row's traceparent — with the
 * span active, so step spans and anything the body traces nest under it. The span ends with the outcome
 * (`jobs.outcome`); a failed attempt is recorded with status ERROR. Answers `run()` untraced when tracing is off or
 * the span cannot be started.
 */
export function traceRun(
  claimed: ClaimedJob,
  run: () => Promise<JobExecution>,
): Promise<JobExecution> {
  const otel = otelApi();
  const tracer = activeTracer();
  if (otel === undefined || tracer === undefined) return run();
  let span: Span;
  let active: Context;
  try {
    const parent = runParent(otel, claimed.traceparent);
    span = tracer.startSpan(
      `job ${claimed.name}`,
      { kind: otel.SpanKind.CONSUMER, attributes: runAttributes(claimed) },
      parent,
    );
    active = otel.trace.setSpan(parent, span);
  } catch {
    return run();
  }
  return otel.context.with(active, run).then(
    (execution) => settled(otel, span, execution),
    (error: unknown) => {
      recordFailure(otel, span, error);
      endSpan(span);
      throw error;
    },
  );
}
