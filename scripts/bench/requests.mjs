/**
 * The one place a benchmark builds a driver-level `EnqueueRequest` by hand. It takes the `uuidv7` of the caller's copy
 * of `@ultimat3/jobs` — built (`lib.mjs`) or read from a checkout's sources (`redis-cost.mjs`, which compares
 * checkouts) — so it loads no package itself.
 */

/**
 * A request due now, with fresh ids, no tenant, actor or trace, priority 0, three attempts and dedupe on conflict;
 * `fields` names the rest (at least `queue`, `name`, `input`) and overrides any default. The idempotency key defaults
 * to one unique per request.
 */
export function enqueueRequest(uuidv7, fields) {
  const id = uuidv7();
  return {
    id,
    runId: uuidv7(),
    idempotencyKey: `key:${id}`,
    tenantId: null,
    enqueuedBy: null,
    runAt: Date.now(),
    maxAttempts: 3,
    priority: 0,
    onConflict: 'dedupe',
    concurrencyKey: null,
    traceparent: null,
    ...fields,
  };
}
