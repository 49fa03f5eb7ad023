/** The job the latency probe times: staged by the parent process, run by the child. */
export const LATENCY_JOB = 'outbox-latency.ping';
/** Its queue. */
export const LATENCY_QUEUE = 'outbox-latency';
