import { Logger, type LoggerService, type LogLevel as NestLogLevel } from '@nestjs/common';
import { InvariantError } from '../errors/runtime-errors';
import {
  formatLogJson,
  formatLogLine,
  JOBS_LOG_FORMATS,
  type JobsLogFormat,
} from '../util/log-format';
import type { JobsLogger, LogLevel } from '../util/logger';

/** Options of {@link nestJobsLogger}. */
export interface NestJobsLoggerOptions {
  /**
   * `'text'` (default): one `event key=value …` line per event through the Nest logger, e.g.
   * `jobs.attempt.failed job=onboard-org jobId=0190… attempt=2/5 code=X_… error="…"`.
   * `'json'`: one JSON object per line — `{"time":…,"level":"error","event":"jobs.attempt.failed","job":…}` — written
   * straight to stdout (stderr for `error`) so no logger prefix splits it for a log shipper; Nest's log levels still
   * decide which levels print (`Logger.isLevelEnabled`), and `logger: false` silences it as it silences Nest.
   */
  readonly format?: JobsLogFormat;
  /** The Nest logger text lines go through (default `new Logger('Jobs')`, which follows the app's logger). */
  readonly logger?: LoggerService;
  /** Add an error field's stack beside it (`errorStack=…`, still one line) (default false). */
  readonly stacks?: boolean;
  /** Where JSON lines go (default `process.stdout`, `process.stderr` for `error`); each line ends in `\n`. */
  readonly write?: (line: string, level: LogLevel) => void;
  /** The clock of the JSON `time` field (default `Date.now`): a log's time is the wall time it was written. */
  readonly now?: () => number;
}

const NEST_LEVEL: Readonly<Record<LogLevel, NestLogLevel>> = {
  debug: 'debug',
  info: 'log',
  warn: 'warn',
  error: 'error',
};

const writeStd = (line: string, level: LogLevel): void => {
  (level === 'error' ? process.stderr : process.stdout).write(line);
};

/**
 * The module's default {@link JobsLogger}: every event as ONE line, never a multi-line object dump — `key=value`
 * through Nest's logger (so it lands wherever the app's logger writes, at the matching level), or JSON for log
 * shippers. `JobsModule.forRoot({ logFormat: 'json' })` picks the format; `logger: nestJobsLogger({ … })` any option.
 * Passing a bare `LoggerService` is the text format through it.
 */
export function nestJobsLogger(options: NestJobsLoggerOptions | LoggerService = {}): JobsLogger {
  const o: NestJobsLoggerOptions = isLoggerService(options) ? { logger: options } : options;
  const format = o.format ?? 'text';
  if (!JOBS_LOG_FORMATS.includes(format)) {
    throw new InvariantError(
      `JobsModule logFormat must be ${JOBS_LOG_FORMATS.map((f) => `'${f}'`).join(' or ')}, not ${JSON.stringify(format)}.`,
      "Set logFormat: 'text' (the default) or 'json'.",
    );
  }
  const stacks = o.stacks === true;
  if (format === 'json') {
    const write = o.write ?? writeStd;
    const now = o.now ?? Date.now;
    return {
      log(level, event, fields = {}) {
        if (!Logger.isLevelEnabled(NEST_LEVEL[level])) return;
        write(`${formatLogJson(level, event, fields, now(), { stacks })}\n`, level);
      },
    };
  }
  const logger = o.logger ?? new Logger('Jobs');
  return {
    log(level, event, fields = {}) {
      const line = formatLogLine(event, fields, { stacks });
      if (level === 'error') logger.error(line);
      else if (level === 'warn') logger.warn(line);
      else if (level === 'debug') logger.debug?.(line);
      else logger.log(line);
    },
  };
}

function isLoggerService(value: unknown): value is LoggerService {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { log?: unknown }).log === 'function' &&
    typeof (value as { warn?: unknown }).warn === 'function'
  );
}
