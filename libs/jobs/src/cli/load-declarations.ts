import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { JobsError } from '../errors/jobs-error';
import {
  collectDeclarations,
  inspectManifest,
  type OperatorDeclarations,
} from '../operator/declarations';

/** Where the CLI learns what the app declares. */
export interface DeclarationOptions {
  /** `--app <module>`: a module (built JavaScript) exporting the app's job and task handles. */
  readonly app?: string;
  /** `--manifest <file>`: an `x.manifest.json` written by `x manifest --app … --json`. */
  readonly manifest?: string;
}

function invalid(message: string, fix: string, cause?: unknown): JobsError {
  return new JobsError(
    'X_JOB_DECLARATION_INVALID',
    message,
    cause === undefined ? { fix } : { fix, cause },
  );
}

/**
 * The app's declarations, from `--app` (required, its exports collected and unnamed handles stamped with their export
 * names as `JobsModule.forFeature` does), else `--manifest` (read as JSON), else undefined: a command that needs them
 * says so. A module that fails to load or exports nothing, or a file that is not a manifest, is
 * `X_JOB_DECLARATION_INVALID` with the fix.
 */
export function loadDeclarations(
  options: DeclarationOptions,
  cwd: string,
): OperatorDeclarations | undefined {
  if (options.app !== undefined) {
    const path = resolve(cwd, options.app);
    let namespace: unknown;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the app's own module, named by the operator
      namespace = require(path) as unknown;
    } catch (error) {
      throw invalid(
        `x could not load --app ${options.app}.`,
        "Point --app at the built module (.js) that exports the app's jobs and tasks.",
        error,
      );
    }
    const found = collectDeclarations((namespace ?? {}) as Readonly<Record<string, unknown>>);
    if (found.jobs.length === 0 && found.tasks.length === 0) {
      throw invalid(
        `--app ${options.app} exports no job or task handle.`,
        'Export the handles job() and task() returned (or an object or array of them).',
      );
    }
    return inspectManifest(found);
  }
  if (options.manifest !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(resolve(cwd, options.manifest), 'utf8'));
    } catch (error) {
      throw invalid(
        `x could not read --manifest ${options.manifest}.`,
        'Write it with: x manifest --app <module> --json > x.manifest.json',
        error,
      );
    }
    const m = parsed as Partial<OperatorDeclarations> | null;
    if (m === null || typeof m !== 'object' || !Array.isArray(m.jobs) || !Array.isArray(m.tasks)) {
      throw invalid(
        `--manifest ${options.manifest} is not an x manifest ({ jobs: [...], tasks: [...] }).`,
        'Write it with: x manifest --app <module> --json > x.manifest.json',
      );
    }
    return { jobs: m.jobs, tasks: m.tasks };
  }
  return undefined;
}
