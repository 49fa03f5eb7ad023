import { JobsError } from './jobs-error';

/**
 * A `backfill()` field is missing, out of range or of the wrong shape (a batch of 0, 1.5 or NaN, a rate that is not
 * finite and positive, no source or handle); refused where the backfill is declared, never on its fourth attempt.
 */
export class BackfillDeclarationInvalidError extends JobsError {
  constructor(backfill: string, field: string, reason: string, fix?: string) {
    super('X_BACKFILL_DECLARATION_INVALID', `Backfill "${backfill}": ${field} ${reason}.`, {
      fix: fix ?? `Correct ${field} in the backfill() declaration.`,
      meta: { backfill, field },
    });
  }
}

/** A completed pass of this backfill is in the ledger: running it again needs `force`. */
export class BackfillAppliedError extends JobsError {
  constructor(backfill: string, previousRunId: string | null) {
    super(
      'X_BACKFILL_APPLIED',
      `Backfill "${backfill}" already completed (run ${previousRunId ?? 'unknown'}).`,
      {
        fix: 'Nothing to do; to sweep again on purpose, pass --force (a new ledger row, the old one kept as history).',
        meta: { backfill, previousRunId },
      },
    );
  }
}

/** The backfill declares `environments` and the current one is not among them. */
export class BackfillEnvironmentError extends JobsError {
  constructor(backfill: string, environment: string, environments: readonly string[]) {
    super(
      'X_BACKFILL_ENVIRONMENT',
      `Backfill "${backfill}" runs in ${environments.map((e) => `"${e}"`).join(', ')}, not in "${environment}".`,
      {
        fix: 'Run it where it is declared to run, or add this environment to its environments list.',
        meta: { backfill, environment, environments: [...environments] },
      },
    );
  }
}

/** The migration the backfill `requires` is not applied to the app's database yet. */
export class BackfillMigrationPendingError extends JobsError {
  constructor(backfill: string, migration: string) {
    super(
      'X_BACKFILL_MIGRATION_PENDING',
      `Backfill "${backfill}" requires migration "${migration}", which is not applied.`,
      {
        fix: 'Run the app’s migrations first (typeorm migration:run), then the backfill.',
        meta: { backfill, migration },
      },
    );
  }
}

/** Declared backfills have not completed a pass (or their newest pass failed): what a deploy check exits on. */
export class BackfillPendingError extends JobsError {
  constructor(names: readonly string[]) {
    super(
      'X_BACKFILL_PENDING',
      `${names.length} backfill(s) declared and not swept: ${names.join(', ')}.`,
      {
        fix: 'Run them (x db backfill --all --write), or remove the declarations that are no longer wanted.',
        meta: { names: [...names] },
      },
    );
  }
}

/** A pass of this backfill is in flight: a second writer on one table is refused. */
export class BackfillRunningError extends JobsError {
  constructor(backfill: string, runId: string | null) {
    super(
      'X_BACKFILL_RUNNING',
      `Backfill "${backfill}" has a pass in flight (run ${runId ?? 'unknown'}).`,
      {
        fix: 'Wait for it to finish (x db backfill --list), or cancel it (x jobs cancel) before starting another.',
        meta: { backfill, runId },
      },
    );
  }
}

/** The source ran out and the declared `count` still matches rows: the two predicates disagree. */
export class BackfillStalledError extends JobsError {
  constructor(backfill: string, remaining: number) {
    super(
      'X_BACKFILL_STALLED',
      `Backfill "${backfill}" exhausted its source and count() still answers ${remaining}.`,
      {
        fix: 'Make source and count select the same rows, and make handle() move every row it is given out of that predicate.',
        meta: { backfill, remaining },
      },
    );
  }
}

/** No backfill is declared under this name. */
export class BackfillUnknownError extends JobsError {
  constructor(backfill: string, known: readonly string[]) {
    super('X_BACKFILL_UNKNOWN', `No backfill is declared under the name "${backfill}".`, {
      fix: `Use one of the declared names (${known.length === 0 ? 'none is declared' : known.join(', ')}), or check the module that declares it is imported.`,
      meta: { backfill, known: [...known] },
    });
  }
}
