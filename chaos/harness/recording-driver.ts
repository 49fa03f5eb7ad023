/**
 * A {@link JobDriver} that records into the ground truth what its worker was handed and what the driver answered to
 * each fenced write: every claim (its token and attempt), every ack, nack and step write with whether it landed, and
 * every refused lease renewal. The job bodies record their own executions (`kind: 'body'`) through the same writer.
 */
import type {
  AckManyItem,
  AckOptions,
  ClaimedJob,
  ClaimOptions,
  ClaimRef,
  JobDriver,
  NackOptions,
  RescueRequest,
  StepRecord,
} from '@ultimat3/jobs';
import type { TruthWriter } from './ground-truth';

/** Options of {@link recordingDriver}. */
export interface RecordingDriverOptions {
  /**
   * Hold each claim's and write's answer until its row is committed (default false: recorded in the background, in
   * the same group commits as the bodies' rows, and flushed by `truth.flush()` at the end). Either way a process alive
   * at the end has recorded every write it made; a SIGKILLed one may lose its last few (a count can then fall short,
   * never exceed).
   */
  readonly awaitRecords?: boolean;
}

/** What {@link recordingDriver} adds to the driver it wraps. */
export interface RecordedHandOffs {
  /**
   * Records rows a backend claimed for the worker inside an enqueue (the hand-off) as the claims they are, `step`
   * `hand-off`: the worker takes them without a claim of its own, so the wrapper would otherwise never see their tokens.
   */
  handed(rows: readonly ClaimedJob[]): Promise<void>;
}

/** Wraps `inner` (spread: its members stay, e.g. a Redis driver's `wake`) so each claim and fenced write it answers is recorded by `truth`. */
export function recordingDriver<D extends JobDriver>(
  inner: D,
  truth: TruthWriter,
  options: RecordingDriverOptions = {},
): D & RecordedHandOffs {
  const keep = (recorded: Promise<void>): Promise<void> =>
    options.awaitRecords === true ? recorded : (recorded.catch(() => undefined), Promise.resolve());
  /** Attempt of each claim token this worker holds (a write carries only the token). */
  const attempts = new Map<string, number>();
  const attemptOf = (claim: ClaimRef): number => attempts.get(claim.claim) ?? 0;

  const write = async (
    kind: 'ack' | 'nack' | 'save',
    jobId: string,
    claim: ClaimRef,
    step: string | null,
    send: () => Promise<boolean>,
  ): Promise<boolean> => {
    const sentAt = Date.now();
    const landed = await send();
    await keep(
      truth.record({
        kind,
        jobId,
        attempt: attemptOf(claim),
        step,
        claim: claim.claim,
        accepted: landed,
        sentAt,
      }),
    );
    // a settle, landed or refused, is the claim's last write
    if (kind !== 'save') attempts.delete(claim.claim);
    return landed;
  };

  /** Records claimed rows; `step` tells how they were claimed (null: a claim of the worker's own, `hand-off`). */
  const claimed = async (
    rows: readonly ClaimedJob[],
    step: string | null = null,
  ): Promise<void> => {
    for (const row of rows) attempts.set(row.claim, row.attempt);
    await keep(
      Promise.all(
        rows.map((row) =>
          truth.record({
            kind: 'claim',
            jobId: row.id,
            attempt: row.attempt,
            claim: row.claim,
            step,
          }),
        ),
      ).then(() => undefined),
    );
  };

  const steps = {
    load: (jobId: string) => inner.steps.load(jobId),
    save: (jobId: string, claim: ClaimRef, step: StepRecord) =>
      write('save', jobId, claim, step.name, () => inner.steps.save(jobId, claim, step)),
  };

  const ackMany =
    inner.ackMany === undefined
      ? undefined
      : async (items: readonly AckManyItem[]): Promise<readonly boolean[]> => {
          const sentAt = Date.now();
          const landed = await inner.ackMany!(items);
          await keep(
            Promise.all(
              items.map((item, i) =>
                truth.record({
                  kind: 'ack',
                  jobId: item.jobId,
                  attempt: attemptOf(item),
                  claim: item.claim,
                  accepted: landed[i] === true,
                  sentAt,
                }),
              ),
            ).then(() => undefined),
          );
          for (const item of items) attempts.delete(item.claim);
          return landed;
        };

  return {
    ...inner,
    handed: (rows: readonly ClaimedJob[]) => claimed(rows, 'hand-off'),
    async claim(options) {
      const rows = await inner.claim(options);
      await claimed(rows);
      return rows;
    },
    // the worker's rescuing claims (its one-round-trip claimAndRescue) are claims too
    ...(inner.claimRescuing === undefined
      ? {}
      : {
          async claimRescuing(options: ClaimOptions, rescue: RescueRequest) {
            const pass = await inner.claimRescuing!(options, rescue);
            await claimed(pass.claimed);
            return pass;
          },
        }),
    ack: (jobId: string, options: AckOptions) =>
      write('ack', jobId, options, null, () => inner.ack(jobId, options)),
    ...(ackMany === undefined ? {} : { ackMany }),
    nack: (jobId: string, options: NackOptions) =>
      write('nack', jobId, options, options.kind, () => inner.nack(jobId, options)),
    async heartbeat(jobId: string, claim: ClaimRef, visibilityTimeoutMs: number) {
      const sentAt = Date.now();
      const landed = await inner.heartbeat(jobId, claim, visibilityTimeoutMs);
      if (!landed) {
        await keep(
          truth.record({
            kind: 'heartbeat',
            jobId,
            attempt: attemptOf(claim),
            claim: claim.claim,
            accepted: false,
            sentAt,
          }),
        );
      }
      return landed;
    },
    steps,
  };
}
