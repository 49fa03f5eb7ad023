import type { AckManyItem, AckOptions, JobDriver } from '../driver/job-driver';
import { errorCodeOf } from '../errors/jobs-error';

/** The most acks one statement settles. */
export const ACK_BATCH_MAX = 500;
/** How many batches may be on the wire at once; acks that arrive meanwhile wait for the next one. */
export const ACK_BATCHES_IN_FLIGHT = 2;

/** Who is told an ack's answer: a worker's run itself (no promise per ack), or a promise's resolve and reject. */
export interface AckReceiver {
  /** The fenced settle was answered: whether it landed. */
  acked(landed: boolean): void;
  /** The driver threw on it (the batch, then the ack sent alone). */
  ackFailed(error: unknown): void;
}

/** Coalesces a worker's acks into `driver.ackMany` batches. */
export interface AckBatcher {
  /** Settles one run done through the next batch: answers whether its fenced settle landed. */
  ack(jobId: string, options: AckOptions): Promise<boolean>;
  /** {@link AckBatcher.ack} answered to `to` rather than through a promise: what a worker's completed run is sent by. */
  send(item: AckManyItem, to: AckReceiver): void;
  /** Acks queued or on the wire. */
  pending(): number;
}

/** An ack's answer as a promise's: for {@link AckBatcher.ack}. */
class PromisedAck implements AckReceiver {
  constructor(
    readonly acked: (landed: boolean) => void,
    readonly ackFailed: (error: unknown) => void,
  ) {}
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
  return new AckBatches(driver);
}

/** Tells each of `to` its answer, in order: whether its fenced settle landed. */
const answered = (to: readonly AckReceiver[], answers: readonly boolean[]): void => {
  to.forEach((r, i) => r.acked(answers[i] === true));
};

/** The {@link AckBatcher} {@link ackBatcher} builds. */
class AckBatches implements AckBatcher {
  private readonly ackMany: JobDriver['ackMany'];
  // the queued acks and who is told each answer, side by side: no wrapper object per ack
  private readonly items: AckManyItem[] = [];
  private readonly receivers: AckReceiver[] = [];
  private inFlight = 0;
  private onWire = 0;

  constructor(private readonly driver: JobDriver) {
    this.ackMany = driver.ackMany?.bind(driver);
  }

  ack(jobId: string, options: AckOptions): Promise<boolean> {
    if (this.ackMany === undefined) return this.driver.ack(jobId, options);
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
      this.enqueue(item, new PromisedAck(resolve, reject));
    });
  }

  send(item: AckManyItem, to: AckReceiver): void {
    if (this.ackMany === undefined) void this.sendAlone(item, to);
    else this.enqueue(item, to);
  }

  pending(): number {
    return this.items.length + this.onWire;
  }

  private enqueue(item: AckManyItem, to: AckReceiver): void {
    this.items.push(item);
    this.receivers.push(to);
    this.flush();
  }

  /** Sends the queued acks in batches while fewer than {@link ACK_BATCHES_IN_FLIGHT} are on the wire. */
  private flush(): void {
    const { ackMany } = this;
    if (ackMany === undefined) return;
    while (this.items.length > 0 && this.inFlight < ACK_BATCHES_IN_FLIGHT) {
      const batch = this.items.splice(0, ACK_BATCH_MAX);
      const to = this.receivers.splice(0, ACK_BATCH_MAX);
      this.inFlight++;
      this.onWire += batch.length;
      ackMany(batch)
        .then(
          (answers) => answered(to, answers),
          (error: unknown) => this.batchFailed(batch, to, error),
        )
        .finally(() => this.batchBack(batch.length));
    }
  }

  /** A batch the driver threw on: its acks failed all at once, or sent again one by one. */
  private batchFailed(
    batch: readonly AckManyItem[],
    to: readonly AckReceiver[],
    error: unknown,
  ): Promise<void[]> | undefined {
    // One item the statement cannot take must not fail the others: a batch that threw is sent again one ack
    // at a time, so the bad one fails alone. The database out of reach fails them all at once instead.
    if (batch.length === 1 || errorCodeOf(error) === 'X_DRIVER_UNAVAILABLE') {
      for (const r of to) r.ackFailed(error);
      return undefined;
    }
    return Promise.all(
      to.flatMap((r, i) => {
        const item = batch[i];
        return item === undefined ? [] : [this.sendAlone(item, r)];
      }),
    );
  }

  /** A batch of `size` acks came back, answered or not: the acks queued meanwhile may leave. */
  private batchBack(size: number): void {
    this.inFlight--;
    this.onWire -= size;
    this.flush();
  }

  /** One ack sent alone: its answer, or the error it alone met. */
  private sendAlone(item: AckManyItem, to: AckReceiver): Promise<void> {
    return this.driver.ack(item.jobId, item).then(
      (landed) => to.acked(landed),
      (error: unknown) => to.ackFailed(error),
    );
  }
}
