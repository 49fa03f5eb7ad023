import type { EnqueueRequest, EnqueueResult } from '../driver/job-driver';

/** The most rows `taskFires()` answers. */
export const MAX_TASK_FIRES = 1_000;

/** One occurrence to fire: the jobs it enqueues and where the watermark moves, in one atomic step. */
export interface TaskFireRequest {
  /** The task's name. */
  readonly task: string;
  /** The occurrence being fired (epoch ms). */
  readonly occurrenceMs: number;
  /**
   * Where the watermark moves: the occurrence itself, or — for `run-once` after a gap — the latest missed one, so the
   * ones it drops are passed in the same step.
   */
  readonly watermarkMs: number;
  /** The watermark this fire was planned from. When the stored one differs (another leader moved it), it is refused. */
  readonly previousWatermarkMs: number;
  /** The rows, with occurrence-scoped idempotency keys. */
  readonly requests: readonly EnqueueRequest[];
}

/** What a fire did. */
export interface TaskFireResult {
  /** False when the watermark had moved: nothing was enqueued and nothing moved. */
  readonly fired: boolean;
  /** One result per request, in order (empty when refused). */
  readonly results: readonly EnqueueResult[];
}

/** The last occurrence of one task that DISPATCHED. Arming and skipping move the watermark and are not fires. */
export interface TaskFireRecord {
  /** The task's name. */
  readonly task: string;
  /** The occurrence that fired (epoch ms it was due). */
  readonly occurrenceMs: number;
  /** When the fire landed, on the state's clock. */
  readonly firedAt: number;
}

/**
 * The scheduler's durable state: per task a watermark (the last occurrence handled), the last fire, and the pause
 * set. Every write is compare-and-set on the watermark, so two leaders — a partition, a lagging clock — cannot both
 * fire one occurrence. The memory implementation is `memorySchedulerState`; Postgres runs each member as ONE statement.
 */
export interface SchedulerState {
  /** The watermarks of these tasks; a task never armed is absent. One read, whatever the number of tasks. */
  load(tasks: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /**
   * Enqueues the requests AND moves the watermark from `previousWatermarkMs` to `watermarkMs` AND records the fire, as
   * one atomic step — a crash between them cannot fire the occurrence twice. Refused (`fired: false`, nothing written)
   * when the stored watermark is not `previousWatermarkMs`.
   */
  fire(request: TaskFireRequest): Promise<TaskFireResult>;
  /**
   * Moves the watermark without firing: arming a new task (`previousWatermarkMs` undefined — only when it has none)
   * and passing occurrences that will not fire. Answers whether it moved (compare-and-set, as `fire`).
   */
  skipTo(
    task: string,
    watermarkMs: number,
    previousWatermarkMs: number | undefined,
  ): Promise<boolean>;
  /** Per task, its last fire, ordered by task name; at most {@link MAX_TASK_FIRES} rows. */
  taskFires(): Promise<readonly TaskFireRecord[]>;
  /** A paused task is not dispatched; on resume its own `catchUp` decides what it missed. */
  pauseTask(task: string): Promise<void>;
  /** Lifts a task's pause: it is dispatched again, its own `catchUp` deciding what it missed. */
  resumeTask(task: string): Promise<void>;
  /** The names of the paused tasks. */
  pausedTasks(): Promise<readonly string[]>;
}
