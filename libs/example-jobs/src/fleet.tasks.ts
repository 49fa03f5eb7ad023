import { task } from '@ultimat3/jobs';
import { pollHosts } from './fleet.jobs';

/**
 * Every five minutes (UTC), hands the tick's instant to ONE fan-out job: the tick stays cheap and synchronous, and
 * `describe()` names `pollHosts` and nothing else. The name is the export name (`pollFleet`).
 */
export const pollFleet = task({
  cron: '*/5 * * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [[pollHosts, { occurrenceMs }]],
});
