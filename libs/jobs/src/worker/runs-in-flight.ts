/** What {@link RunsInFlight} keeps of a run: its row's id. */
interface HeldRun {
  readonly claimed: { readonly id: string };
}

/**
 * The runs a worker holds, kept by identity rather than by job id: a map keyed by id hashes every claimed row's fresh
 * id string on the way in and again on the way out, thousands of times a second in a drain, where a set of the run
 * objects hashes nothing it has not hashed before. The ids are read only when asked for (presence, the drain's log).
 */
export class RunsInFlight<R extends HeldRun> {
  readonly #runs = new Set<R>();

  /** How many runs are held. */
  get size(): number {
    return this.#runs.size;
  }

  add(run: R): void {
    this.#runs.add(run);
  }

  delete(run: R): void {
    this.#runs.delete(run);
  }

  /** The held runs' job ids. */
  *keys(): IterableIterator<string> {
    for (const run of this.#runs) yield run.claimed.id;
  }

  /** The held runs. */
  values(): IterableIterator<R> {
    return this.#runs.values();
  }
}
