import { errorCodeOf } from '../errors/jobs-error';

/** A listener of one of the run's channels. */
type Listener = (reason: unknown) => void;

/**
 * Whether `reason` is a soft stop: the worker's drain (`X_DRAINING`), which asks the body to wind down but lets one that
 * honours it finish what it has under way. Anything else — the deadline, a lost lease, a lost fleet slot, a cancel —
 * is a hard stop: the run's result will not be taken any more.
 */
export function isSoftStop(reason: unknown): boolean {
  return errorCodeOf(reason) === 'X_DRAINING';
}

/**
 * One channel of a run's cancellation: aborts once, with its `AbortSignal` made on first read. A worker draining
 * thousands of no-op runs a second pays ~2 µs and two listener registrations for every `AbortController` it makes;
 * most bodies never read their signal, so the channel keeps the reason itself and hands a real signal out only when
 * asked (already aborted when it was).
 */
class StopChannel {
  #controller: AbortController | undefined;
  aborted = false;
  reason: unknown = undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the channel (its signal's listeners run now). */
  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
  }
}

/**
 * One run's cancellation, in two strengths ({@link isSoftStop}):
 *
 * - {@link RunAbort.signal} (the body's `ctx.signal`) is aborted by the first stop of either strength, with its
 *   reason — an `AbortSignal` aborts once, so a later stop cannot change it.
 * - {@link RunAbort.hardSignal} (`ctx.hardSignal`) is aborted by the first HARD stop only, and it is still aborted
 *   when a drain came first: a deadline or a lost lease always reaches a body that binds to it. Work a drain must let
 *   finish (a webhook POST already on the wire) binds to it; work a drain should stop binds to `signal`.
 *
 * Internal listeners are plain callbacks, told after both signals' own listeners: {@link RunAbort.onAbort} once, of
 * the first stop; {@link RunAbort.onStop} of every stop, those the signals ignore included — so the attempt's wait
 * ends at the deadline whatever stopped the run before.
 */
export class RunAbort {
  // both channels are made on first use: most runs are never stopped and never read a signal
  #firstChannel: StopChannel | undefined;
  #hardChannel: StopChannel | undefined;
  #onFirst: Listener[] | undefined;
  #onEach: Listener[] | undefined;

  get #first(): StopChannel {
    return (this.#firstChannel ??= new StopChannel());
  }

  get #hard(): StopChannel {
    return (this.#hardChannel ??= new StopChannel());
  }

  /** Whether the run was stopped (soft or hard). */
  get aborted(): boolean {
    return this.#firstChannel?.aborted === true;
  }

  /** What the run was first stopped with (undefined while it was not): the reason `signal` carries. */
  get reason(): unknown {
    return this.#firstChannel?.reason;
  }

  /** Whether the run was hard-stopped (before or after a drain). */
  get hardStopped(): boolean {
    return this.#hardChannel?.aborted === true;
  }

  /** What the run was first hard-stopped with (undefined while it was not): the reason `hardSignal` carries. */
  get hardReason(): unknown {
    return this.#hardChannel?.reason;
  }

  /** Aborted by the first stop of either strength; made on first read. */
  get signal(): AbortSignal {
    return this.#first.signal;
  }

  /** Aborted by the first hard stop, even after a drain; never by a drain. Made on first read. */
  get hardSignal(): AbortSignal {
    return this.#hard.signal;
  }

  /**
   * Stops the run with `reason`: a drain (`X_DRAINING`) is a soft stop, anything else a hard one. The first stop
   * aborts `signal`; the first hard stop aborts `hardSignal` (and `signal` too, when nothing stopped the run before).
   */
  abort(reason: unknown): void {
    let first: Listener[] | undefined;
    if (!this.aborted) {
      this.#first.abort(reason);
      first = this.#onFirst;
      this.#onFirst = undefined;
    }
    if (!this.hardStopped && !isSoftStop(reason)) this.#hard.abort(reason);
    if (first !== undefined) for (const listener of first) listener(reason);
    const each = this.#onEach;
    if (each !== undefined) for (const listener of [...each]) listener(reason);
  }

  /** Calls `listener` once when the run is first stopped (at once if it was). Answers the removal. */
  onAbort(listener: Listener): () => void {
    if (this.aborted) {
      listener(this.reason);
      return () => undefined;
    }
    return remover((this.#onFirst ??= []), listener);
  }

  /**
   * Calls `listener` with every stop from now on, until removed — a stop the signals ignore (a second one) too. Unlike
   * {@link RunAbort.onAbort} it is not told of stops before it was added. Answers the removal.
   */
  onStop(listener: Listener): () => void {
    return remover((this.#onEach ??= []), listener);
  }

  /** A run that follows `parent`: stopped with its reason when it aborts. Answers the run and the unlink. */
  static following(parent: AbortSignal): { run: RunAbort; dispose: () => void } {
    const run = new RunAbort();
    if (parent.aborted) {
      run.abort(parent.reason);
      return { run, dispose: () => undefined };
    }
    const onAbort = (): void => run.abort(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
    return { run, dispose: () => parent.removeEventListener('abort', onAbort) };
  }
}

/** Adds `listener` to `listeners`; answers its removal. */
function remover(listeners: Listener[], listener: Listener): () => void {
  listeners.push(listener);
  return () => {
    const i = listeners.indexOf(listener);
    if (i !== -1) listeners.splice(i, 1);
  };
}
