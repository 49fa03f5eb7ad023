/**
 * One run's cancellation, with its `AbortSignal` made on first read. A worker draining thousands of no-op runs a second
 * pays ~2 µs and two listener registrations for every `AbortController` it makes; most bodies never read their signal,
 * so the run keeps the reason itself and hands a real signal out only when asked (already aborted when it was).
 * Internal listeners ({@link RunAbort.onAbort}) are plain callbacks, told after the signal's own listeners.
 */
export class RunAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown = undefined;
  #listeners: ((reason: unknown) => void)[] | undefined;

  /** Whether the run was aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** What the run was aborted with (undefined while it was not). */
  get reason(): unknown {
    return this.#reason;
  }

  /** The run's signal, made on first read. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the run with `reason` (the first abort wins; later ones are ignored). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    this.#listeners = undefined;
    for (const listener of listeners) listener(reason);
  }

  /** Calls `listener` once when the run aborts (at once if it already did). Answers the removal. */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) {
      listener(this.#reason);
      return () => undefined;
    }
    (this.#listeners ??= []).push(listener);
    return () => {
      const listeners = this.#listeners;
      if (listeners === undefined) return;
      const i = listeners.indexOf(listener);
      if (i !== -1) listeners.splice(i, 1);
    };
  }

  /** A run that follows `parent`: aborted with its reason when it aborts. Answers the run and the unlink. */
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
