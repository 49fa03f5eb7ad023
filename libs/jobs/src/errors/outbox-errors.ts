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
