import { Logger, type LoggerService } from '@nestjs/common';
import type { JobsLogger } from '../util/logger';

/**
 * Adapts a Nest logger to a {@link JobsLogger}: each event is logged as one structured object `{ event, ...fields }`,
 * so a JSON log pipeline can alert on the event name. Default: `new Logger('Jobs')`.
 */
export function nestJobsLogger(logger: LoggerService = new Logger('Jobs')): JobsLogger {
  return {
    log(level, event, fields = {}) {
      const entry = { event, ...fields };
      if (level === 'error') logger.error(entry);
      else if (level === 'warn') logger.warn(entry);
      else if (level === 'debug') logger.debug?.(entry);
      else logger.log(entry);
    },
  };
}
