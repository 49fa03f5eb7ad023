import type { QueueView } from '../operator/queues';
import { span, table } from './output';

/** Queues as a table: counts per state, the oldest due row's age, the pause flag. */
export function renderQueues(queues: readonly QueueView[]): string {
  if (queues.length === 0) return 'no queues';
  return table(
    [
      'queue',
      'paused',
      'ready',
      'delayed',
      'running',
      'suspended',
      'done',
      'failed',
      'dead',
      'cancelled',
      'oldest ready',
    ],
    queues.map((q) => [
      q.queue,
      q.paused ? 'yes' : '',
      q.ready,
      q.delayed,
      q.running,
      q.suspended,
      q.done,
      q.failed,
      q.dead,
      q.cancelled,
      q.oldestReadyMs === 0 ? '' : span(q.oldestReadyMs),
    ]),
  );
}
