/**
 * The documented ambient state of this package, and the only process-global state it keeps:
 *
 * 1. the jobs facade — what `handle.enqueue()` routes through. `JobsModule` installs it at bootstrap and removes it at
 *    close; `JobsService` is the DI path to the same thing.
 * 2. the declaration table — which declaration holds which durable name. A job name is a queue key, and two
 *    definitions of one name are refused at `job()`, before either can seat the other out; only a table every
 *    declaration sees can decide that at declaration time. It also numbers anonymous declarations.
 * 3. the error-retry table — how app error codes are retried (`registerErrorRetry`). A code is declared once, beside
 *    the module that throws it, and every worker reads the same answer.
 */
import { DriverUnavailableError } from '../errors/runtime-errors';
import type { EnqueueRequest, EnqueueResult } from '../driver/job-driver';
import type { EventBus } from '../events/event-bus';
import type { BackfillRuntime } from '../backfill/backfill-runtime';

/** Where an enqueue goes: straight to a driver, or staged in the caller's transaction (the outbox). */
export interface JobsFacade {
  /** The enqueuer's clock: an immediate job is due at this instant. */
  now(): number;
  /** Queues one prepared row. `tx` is the caller's explicit transaction, if it passed one. */
  enqueue(request: EnqueueRequest, options: { readonly tx?: unknown }): Promise<EnqueueResult>;
  /**
   * Queues prepared rows in ONE write (one statement, or one stage in the caller's transaction): all or none. Answers
   * one result per request, in order. `tx` as for {@link JobsFacade.enqueue}.
   */
  enqueueMany(
    requests: readonly EnqueueRequest[],
    options: { readonly tx?: unknown },
  ): Promise<readonly EnqueueResult[]>;
  /** The event bus `publishEvent()` publishes on, when the app has one. */
  readonly events?: EventBus;
  /** What a `backfill()` pass records itself in (the backend's ledger), and the environment it runs in. */
  readonly backfills?: BackfillRuntime;
}

/** Installed facades, newest last: two apps in one process (tests) may close in any order. */
const installed: JobsFacade[] = [];

/** Installs the facade `handle.enqueue()` routes through. Answers the uninstall, which removes exactly this one. */
export function setJobsFacade(facade: JobsFacade): () => void {
  installed.push(facade);
  return () => {
    const at = installed.lastIndexOf(facade);
    if (at >= 0) installed.splice(at, 1);
  };
}

/** The newest installed facade. With none, an enqueue is `X_DRIVER_UNAVAILABLE` at the call, never a dropped job. */
export function jobsFacade(): JobsFacade {
  const facade = installed[installed.length - 1];
  if (facade === undefined) throw missingFacade();
  return facade;
}

/** `JobsModule` instances built but not yet bootstrapped, and whether one has closed: what a missing facade means. */
const booting = new Set<object>();
let closedOne = false;

/** Where one `JobsModule` is in its life, as far as a missing facade's error is concerned. */
export interface JobsModulePhase {
  /** Its facade is installed. */
  started(): void;
  /** Its facade was removed at shutdown. */
  closed(): void;
}

/** Registers a `JobsModule` being built (its lifecycle calls this), so an early enqueue is told what works then. */
export function announceJobsModule(): JobsModulePhase {
  const token = {};
  booting.add(token);
  return {
    started: () => void booting.delete(token),
    closed: () => {
      booting.delete(token);
      closedOne = true;
    },
  };
}

function missingFacade(): DriverUnavailableError {
  if (booting.size > 0) {
    return new DriverUnavailableError(
      'JobsModule has not bootstrapped yet: enqueue() ran in a constructor or onModuleInit, before it installs the facade',
      'Enqueue from onApplicationBootstrap or later (JobsModule is global, so it installs the facade before any other module bootstraps), or once app.init() resolved.',
    );
  }
  if (closedOne) {
    return new DriverUnavailableError(
      'The JobsModule application was closed (app.close() or a shutdown signal) and removed its facade',
      'Nothing enqueues through a closed application: enqueue before close (beforeApplicationShutdown is the last hook that can), or boot the application again.',
    );
  }
  return new DriverUnavailableError();
}

/** Whether a facade is installed. */
export function hasJobsFacade(): boolean {
  return installed.length > 0;
}

const declared = new Map<string, object>();
let anonymous = 0;

/** Seats `owner` on `name`; answers the owner already seated there when it is another declaration. */
export function seatName(name: string, owner: object): object | undefined {
  const current = declared.get(name);
  if (current !== undefined && current !== owner) return current;
  declared.set(name, owner);
  return undefined;
}

/** Frees `name` when `owner` holds it (a stamped export name moving an anonymous declaration). */
export function unseatName(name: string, owner: object): void {
  if (declared.get(name) === owner) declared.delete(name);
}

/** The next positional name for a declaration that set none: `anonymous-job-1`, `anonymous-job-2`, … */
export function nextAnonymousName(kind: 'job' | 'task'): string {
  anonymous += 1;
  return `anonymous-${kind}-${anonymous}`;
}

const errorRetry = new Map<string, string>();

/** Records how `code` is retried (internal to `registerErrorRetry`). */
export function setErrorRetry(code: string, cls: string): void {
  errorRetry.set(code, cls);
}

/** How `code` was registered to be retried, if it was. */
export function registeredErrorRetry(code: string): string | undefined {
  return errorRetry.get(code);
}
