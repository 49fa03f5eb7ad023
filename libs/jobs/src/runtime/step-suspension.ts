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
