import type { Command } from 'commander';
import type { OperatorDeclarations } from '../../operator/declarations';
import type { Cli } from '../cli';

/** The help of `--force` on `x tasks pause|resume`. */
export const TASK_FORCE_HELP =
  'act on a name nothing knows yet (not declared in --app/--manifest, never fired nor paused): a task of a release not yet deployed';

/** The help of `--force` on `x queues pause|resume`. */
export const QUEUE_FORCE_HELP =
  'act on a queue nothing knows yet (no row holds it, not paused, no job of --app/--manifest enqueued on it)';

/**
 * What `x queues|tasks pause|resume` pass the operator: the declarations of `--app` / `--manifest`, when given, so a
 * declared task or a declared job's queue is known before the backend saw it, and `--force`.
 */
export function pauseOptions(
  cli: Cli,
  command: Command,
): { readonly declarations?: OperatorDeclarations; readonly force?: boolean } {
  const declarations = cli.declarations(command);
  const { force } = cli.options<{ force?: boolean }>(command);
  return {
    ...(declarations === undefined ? {} : { declarations }),
    ...(force === true ? { force } : {}),
  };
}
