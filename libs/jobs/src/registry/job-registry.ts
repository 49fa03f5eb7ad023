import { JobDuplicateError } from '../errors/declaration-errors';
import { JobUnboundError } from '../errors/runtime-errors';
import type { JobDescriptor } from '../declare/descriptor';
import type { AnyJobHandle } from '../declare/handle';
import type { RunArgs } from '../declare/run-args';

/**
 * A body bound to a declaration: the inline `run`, or a `@Job` method with its provider as `this`. It answers its
 * result, a promise of it, or throws: the attempt waits only for a promise.
 */
export type JobBody = (args: RunArgs<unknown>) => unknown;

/** A registered job: its handle, and the body that serves it (undefined until bound). */
export interface RegisteredJob {
  /** The job's declaration, as registered. */
  readonly handle: AnyJobHandle;
  /** The body that runs it: the inline `run`, a bound `@Job` method, or undefined while none is bound. */
  readonly body: JobBody | undefined;
}

/**
 * Which jobs this process knows, by durable name, and which body serves each. A provider, not a process global: one
 * registry per Nest application (or per `jobWorker` in a plain script).
 */
export class JobRegistry {
  readonly #jobs = new Map<
    string,
    { handle: AnyJobHandle; bound: JobBody | undefined; binder: string | undefined }
  >();

  /** Registers a handle. The same handle twice is one registration; a different one under its name is X_JOB_DUPLICATE. */
  register(handle: AnyJobHandle): void {
    const current = this.#jobs.get(handle.name);
    if (current?.handle === handle) return;
    if (current !== undefined) {
      throw new JobDuplicateError(
        `Two different jobs are registered under the name "${handle.name}".`,
        'A job name is a durable queue key: rename one of them.',
        { name: handle.name },
      );
    }
    this.#jobs.set(handle.name, { handle, bound: undefined, binder: undefined });
  }

  /** Binds a DI-aware body (a `@Job` method) to a declaration without an inline `run`. Registers the handle too. */
  bind(handle: AnyJobHandle, body: JobBody, binder: string): void {
    this.register(handle);
    const entry = this.#jobs.get(handle.name);
    if (entry === undefined) return;
    if (handle.inline) {
      throw new JobDuplicateError(
        `Job "${handle.name}" has an inline run() and is also bound by ${binder}.`,
        'Keep one body: remove run from the declaration or the @Job binding.',
        { name: handle.name },
      );
    }
    if (entry.bound !== undefined && entry.binder !== binder) {
      throw new JobDuplicateError(
        `Job "${handle.name}" is bound by both ${entry.binder ?? '?'} and ${binder}.`,
        'Bind each job with exactly one @Job(handle) method.',
        { name: handle.name },
      );
    }
    entry.bound = body;
    entry.binder = binder;
  }

  /** The registered job under `name`. */
  get(name: string): RegisteredJob | undefined {
    const entry = this.#jobs.get(name);
    if (entry === undefined) return undefined;
    return { handle: entry.handle, body: entry.bound ?? inlineBody(entry.handle) };
  }

  /** Every registered job, in registration order. */
  all(): readonly RegisteredJob[] {
    return [...this.#jobs.keys()]
      .map((name) => this.get(name))
      .filter((j): j is RegisteredJob => j !== undefined);
  }

  /** The manifest: every registered job's descriptor, by name. */
  manifest(): readonly JobDescriptor[] {
    return this.all()
      .map((j) => j.handle.describe())
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Refuses to serve jobs whose declaration has no body and no binding (X_JOB_UNBOUND), naming the first. */
  assertBound(names?: readonly string[]): void {
    for (const job of this.all()) {
      if (names !== undefined && !names.includes(job.handle.queue)) continue;
      if (job.body === undefined) throw new JobUnboundError(job.handle.name);
    }
  }
}

function inlineBody(handle: AnyJobHandle): JobBody | undefined {
  if (!handle.inline) return undefined;
  return (args) => handle.runInline(args as RunArgs<never>);
}
