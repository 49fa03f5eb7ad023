import { JobsError } from './jobs-error';

/**
 * An enqueue reached the outbox with no transaction to stage in: outside one under `mode: 'required'`, or with a
 * `tx` the outbox store cannot write on (not a transaction it knows, or one already finished). Nothing was queued.
 */
export class OutboxNoTxError extends JobsError {
  constructor(job: string, detail = 'was enqueued outside a transaction') {
    super(
      'X_OUTBOX_NO_TX',
      `Job "${job}" ${detail}; the outbox requires one. Nothing was queued.`,
      {
        fix: 'Enqueue inside a request the OutboxInterceptor wraps, or pass { tx: manager } from an open transaction.',
        meta: { job },
      },
    );
  }
}

/**
 * The relay could not publish a staged row in its `maxPublishAttempts` tries (default 5): the row is taken out of
 * every claim (`OutboxStore.quarantine`), logged `jobs.outbox.quarantined`, and the rows behind it flow on. Recorded,
 * never thrown: the row's `quarantine_code` and the log line carry the code, `last_error` the publish's own error.
 */
export class OutboxQuarantinedError extends JobsError {
  constructor(job: string, id: string, attempts: number, cause: string) {
    super(
      'X_OUTBOX_QUARANTINED',
      `Staged job "${job}" (${id}) failed to publish ${attempts} times and is quarantined: ${cause}`,
      {
        fix: 'Read it with store.quarantined(), fix what refused it, then store.restore([id]) to publish it again.',
        meta: { job, id, attempts },
      },
    );
  }
}

/**
 * A staged row whose transaction staged an earlier row that was quarantined: it is quarantined with it, so a
 * transaction's later rows never publish without its earlier ones. Recorded on the row, never thrown.
 */
export class OutboxHeldBehindError extends JobsError {
  constructor(id: string, behind: string) {
    super('X_OUTBOX_HELD_BEHIND', `Staged row ${id} is held behind quarantined row ${behind}.`, {
      fix: 'Restore the quarantined row and the rows held behind it together: store.restore([...ids]).',
      meta: { id, behind },
    });
  }
}
