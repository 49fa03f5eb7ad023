/**
 * Thrown by `step.sleep` and `step.waitForEvent` to suspend a run: control flow, never a failure. It burns no
 * attempt; the row is parked until `resumeAt`.
 */
export class StepSuspension extends Error {
  constructor(
    /** When the run is due again (epoch ms). */
    readonly resumeAt: number,
    /** Which step suspended it. */
    readonly step: string,
  ) {
    super(`Run suspended by step "${step}" until ${new Date(resumeAt).toISOString()}.`);
    this.name = 'StepSuspension';
  }
}

/**
 * The suspension an attempt raised, kept for the rest of the attempt: a body that catches it (a `try` around
 * `step.sleep`, a catch-all that logs) must not go on as if the wait were over. Every later step call throws it again,
 * and the attempt parks the run on it whatever the body then does — returns, or throws something else.
 */
export class SuspensionLatch {
  #raised: StepSuspension | undefined;

  /** The suspension to throw: `suspension` when it is the attempt's first, else the first one, again. */
  raise(suspension: StepSuspension): StepSuspension {
    return (this.#raised ??= suspension);
  }

  /** The attempt's suspension, once a step raised one. */
  get raised(): StepSuspension | undefined {
    return this.#raised;
  }
}
