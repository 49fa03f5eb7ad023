import type { EnqueueRequest } from '@ultimat3/jobs';
import { enqueueRequest } from '../../jobs/test/requests';

let seq = 0;

/** A fresh request due now on `queue` (default `pg-q`), with a unique key unless `overrides` names one. */
export function request(overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
  return enqueueRequest({ name: 'pg.job', queue: 'pg-q', input: { n: seq++ }, ...overrides });
}
