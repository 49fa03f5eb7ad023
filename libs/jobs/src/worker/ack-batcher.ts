import type { AckManyItem, AckOptions, JobDriver } from '../driver/job-driver';
import { errorCodeOf } from '../errors/jobs-error';

/** The most acks one statement settles. */
export const ACK_BATCH_MAX = 500;
/** How many batches may be on the wire at once; acks that arrive meanwhile wait for the next one. */
export const ACK_BATCHES_IN_FLIGHT = 2;

interface PendingAck {
  readonly item: AckManyItem;
  readonly resolve: (landed: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/** Coalesces a worker's acks into `driver.ackMany` batches. */
export interface AckBatcher {
  /** Settles one run done through the next batch: answers whether its fenced settle landed. */
  ack(jobId: string, options: AckOptions): Promise<boolean>;
  /** Acks queued or on the wire. */
  pending(): number;
}

/**
 * Batches acks the way Nagle batches bytes, with no timer: an ack is sent at once while fewer than
 * {@link ACK_BATCHES_IN_FLIGHT} batches are on the wire, so a lone ack is never delayed; acks arriving while that many
 * are out queue up and leave together, up to {@link ACK_BATCH_MAX} per statement, when one comes back. The batch grows
 * with the database's latency, which is what makes it worth having: a commit costs ~0.7 ms of WAL flush on a 2-core VM
 * whatever it settles. Each item stays fenced on its own claim (`ackMany`). A batch the driver threw on is sent again
 * item by item (`ack`), so one ack it cannot take fails alone. A driver without `ackMany` gets its acks one by one,
 * unchanged.
 */
export function ackBatcher(driver: JobDriver): AckBatcher {
  const ackMany = driver.ackMany?.bind(driver);
  const queue: PendingAck[] = [];
  let inFlight = 0;
  let onWire = 0;

  const send = (): void => {
    if (ackMany === undefined) return;
    while (queue.length > 0 && inFlight < ACK_BATCHES_IN_FLIGHT) {
      const batch = queue.splice(0, ACK_BATCH_MAX);
      inFlight++;
      onWire += batch.length;
      ackMany(batch.map((p) => p.item))
        .then(
          (answers) => {
            batch.forEach((p, i) => p.resolve(answers[i] === true));
          },
          (error: unknown) => {
            // One item the statement cannot take must not fail the others: a batch that threw is sent again one ack
            // at a time, so the bad one fails alone. The database out of reach fails them all at once instead.
            if (batch.length === 1 || errorCodeOf(error) === 'X_DRIVER_UNAVAILABLE') {
              for (const p of batch) p.reject(error);
              return undefined;
            }
            return Promise.all(
              batch.map((p) => driver.ack(p.item.jobId, p.item).then(p.resolve, p.reject)),
            );
          },
        )
        .finally(() => {
          inFlight--;
          onWire -= batch.length;
          send();
        });
    }
  };

  return {
    ack(jobId, options) {
      if (ackMany === undefined) return driver.ack(jobId, options);
      return new Promise<boolean>((resolve, reject) => {
        const item: AckManyItem =
          options.durationMs === undefined
            ? { jobId, workerId: options.workerId, claim: options.claim }
            : {
                jobId,
                workerId: options.workerId,
                claim: options.claim,
                durationMs: options.durationMs,
              };
        queue.push({ item, resolve, reject });
        send();
      });
    },
    pending: () => queue.length + onWire,
  };
}
