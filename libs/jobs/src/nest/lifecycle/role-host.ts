/** A role that runs until shutdown, as opposed to `web`, which only enqueues. */
export type JobsLongRunningRole = 'worker' | 'scheduler' | 'relay';

/** The order the long-running roles start in: a consumer before its producers, so the first fire has a worker. */
export const ROLE_START_ORDER: readonly JobsLongRunningRole[] = ['worker', 'relay', 'scheduler'];

/**
 * The order they stop in: producers first — the scheduler stops firing, the relay stops publishing — then the worker
 * stops claiming; the driver closes after all three.
 */
export const ROLE_STOP_ORDER: readonly JobsLongRunningRole[] = ['scheduler', 'relay', 'worker'];

/**
 * A host of one long-running role (`WorkerHost`, `SchedulerHost`, `OutboxHost`). `JobsLifecycle` is the only caller of
 * these methods: it starts the hosts at bootstrap and stops them at shutdown, in the orders above, so no host calls
 * another's hooks and no order depends on how modules were imported.
 */
export interface JobsRoleHost {
  readonly role: JobsLongRunningRole;
  /** Starts the role. Called once, at bootstrap, only when the process holds the role; a throw fails the boot. */
  start(): Promise<void>;
  /**
   * The accept phase: stop taking new work, at once. `cause` names why (`SIGTERM`, `app.close()`); `deadlineAt` is the
   * shutdown's one deadline (epoch ms on the module's clock).
   */
  beginStop(cause: string, deadlineAt: number): void;
  /** The close phase: wait for the work in flight, up to `deadlineAt`. */
  stop(deadlineAt: number): Promise<void>;
}
