import { job, t } from '@ultimat3/jobs';

/**
 * Polls one host for one tick: the unit of retry, so one host being down retries alone. The key carries the tick, so
 * however often the fan-out replays, one host and one tick are one row. The name is the export name (`pollHost`),
 * stamped by `JobsModule.forFeature`; the body is `FleetJobs.pollHost`.
 */
export const pollHost = job({
  input: t.object({ hostId: t.uuid, occurrenceMs: t.number.int() }),
  idempotencyKey: ({ hostId, occurrenceMs }) => `poll-host:${hostId}:${occurrenceMs}`,
  tenant: 'none',
  retry: { attempts: 3, backoff: 'exponential' },
});

/**
 * The fan-out for one tick: lists the hosts, then enqueues one `pollHost` per host, each in its own step keyed by the
 * host, so a retried attempt re-enqueues none it already did. The body is `FleetJobs.pollHosts`.
 */
export const pollHosts = job({
  input: t.object({ occurrenceMs: t.number.int() }),
  idempotencyKey: ({ occurrenceMs }) => `poll-hosts:${occurrenceMs}`,
  tenant: 'none',
  retry: { attempts: 3, backoff: 'exponential' },
});
