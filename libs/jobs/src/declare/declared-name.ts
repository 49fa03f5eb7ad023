import { JobDuplicateError } from '../errors/declaration-errors';
import { nextAnonymousName, seatName, unseatName } from './ambient';
import { assertName, MAX_JOB_NAME_LENGTH } from './names';

/** What a job's or a task's name keys, for the messages. */
const KEYS = { job: 'a durable queue key', task: 'a durable watermark' } as const;

/**
 * The durable name of one declaration: explicit (never moved), or positional until registration stamps its export
 * name. Seated in the declaration table, so every collision is `X_JOB_DUPLICATE` at the earliest point it is
 * decidable. Jobs and tasks have separate seats: a task may share a job's name.
 */
export class DeclaredName {
  readonly explicit: boolean;
  #name: string;
  #stamped = false;

  constructor(
    private readonly kind: 'job' | 'task',
    private readonly owner: object,
    explicit: string | undefined,
  ) {
    this.explicit = explicit !== undefined;
    this.#name = explicit ?? nextAnonymousName(kind);
    if (seatName(this.#seat(this.#name), owner) !== undefined) {
      throw new JobDuplicateError(
        `Two declarations set the ${kind} name "${this.#name}".`,
        `A ${kind} name is ${KEYS[kind]}: give each ${kind}() its own name.`,
        { name: this.#name },
      );
    }
  }

  /** The current name. */
  get value(): string {
    return this.#name;
  }

  /**
   * Moves an unnamed declaration onto its export name. An explicit name is never moved; a second, different export
   * name is `X_JOB_DUPLICATE` (the alias would move the durable key), as is an export name another declaration holds.
   */
  stamp(exportName: string): void {
    if (this.explicit || this.#name === exportName) return;
    if (this.#stamped) {
      throw new JobDuplicateError(
        `One ${this.kind} is exported under two names ("${this.#name}" and "${exportName}").`,
        `Export each ${this.kind} once, or set name: on the declaration so an alias cannot move ${KEYS[this.kind]}.`,
        { name: this.#name, alias: exportName },
      );
    }
    assertName(exportName, 'export name', exportName, MAX_JOB_NAME_LENGTH);
    if (seatName(this.#seat(exportName), this.owner) !== undefined) {
      throw new JobDuplicateError(
        `Export "${exportName}" names a ${this.kind} another declaration already holds.`,
        `Rename the export or the other declaration: a ${this.kind} name is ${KEYS[this.kind]}.`,
        { name: exportName },
      );
    }
    unseatName(this.#seat(this.#name), this.owner);
    this.#name = exportName;
    this.#stamped = true;
  }

  /**
   * The table key of `name`: the kind, a space, the name. No name holds a space, so a job named `task:x` and a task
   * named `x` never share a seat.
   */
  #seat(name: string): string {
    return `${this.kind} ${name}`;
  }
}
