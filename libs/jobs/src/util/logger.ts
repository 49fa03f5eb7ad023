export {
  errorLine,
  formatLogJson,
  formatLogLine,
  JOBS_LOG_FORMATS,
  logError,
  logRecord,
  type JobsLogFormat,
  type LogFormatOptions,
} from './log-format';

/** Severity of a structured log event. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Where the runtime reports what happened, as structured events with stable names (`jobs.lease.lost`,
 * `jobs.attempt.failed`, …) so an app's log pipeline can alert on them. Fields are flat facts — ids, codes, counts,
 * an error's one-line text — that a formatter prints as `key=value` or JSON ({@link formatLogLine},
 * {@link formatLogJson}). The Nest module's default prints one line per event through Nest's `Logger`.
 */
export interface JobsLogger {
  /** Reports one event: its severity, its stable name (`jobs.lease.lost`) and its flat fields. */
  log(level: LogLevel, event: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** A logger that drops everything (the default of plain scripts that pass none). */
export const silentLogger: JobsLogger = { log: () => undefined };

/** A logger that keeps every event in memory: for tests that assert what was reported. */
export interface RecordingLogger extends JobsLogger {
  /** Every event logged so far, in order (fields `{}` when none were passed). */
  readonly events: { level: LogLevel; event: string; fields: Readonly<Record<string, unknown>> }[];
  /** Events with this name. */
  named(
    event: string,
  ): { level: LogLevel; event: string; fields: Readonly<Record<string, unknown>> }[];
}

/** Creates a {@link RecordingLogger}. */
export function recordingLogger(): RecordingLogger {
  const events: RecordingLogger['events'] = [];
  return {
    events,
    log: (level, event, fields = {}) => void events.push({ level, event, fields }),
    named: (event) => events.filter((e) => e.event === event),
  };
}
