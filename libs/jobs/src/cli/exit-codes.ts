/**
 * The exit codes of `x`, for scripts: 0 the command did what it was asked; 1 it failed (the error's `X_…` code and
 * fix are printed); 2 it was asked wrongly (an unknown command or option, a missing argument, flags that exclude each
 * other); 3 `x jobs dead --fail-if-any` found dead letters.
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  deadLetters: 3,
} as const;

/** One of {@link EXIT}'s codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A command asked wrongly, found by a check commander cannot make (flags that exclude each other): exit 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** A command that answered and wants a particular exit code (`--fail-if-any` with dead letters present). */
export class CliExit extends Error {
  constructor(readonly exitCode: ExitCode) {
    super(`exit ${exitCode}`);
    this.name = 'CliExit';
  }
}
