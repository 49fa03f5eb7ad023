/**
 * The wait a `Retry-After` header names, in seconds: delta-seconds (`120`), or an HTTP-date measured against the
 * response's own `Date` header (the receiver's clock against itself, so skew between the two hosts cancels out),
 * else against `nowMs`. Zero, a date already past, or anything unparseable states no wait (`undefined`): the job's
 * backoff applies. Clamping is the retry policy's (`retry.maxDelay`), not this function's.
 */
export function retryAfterSeconds(
  retryAfter: string | undefined,
  responseDate: string | undefined,
  nowMs: number,
): number | undefined {
  if (retryAfter === undefined) return undefined;
  const text = retryAfter.trim();
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) && seconds > 0 ? seconds : undefined;
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  const stamped = responseDate === undefined ? Number.NaN : Date.parse(responseDate);
  const from = Number.isNaN(stamped) ? nowMs : stamped;
  const seconds = Math.ceil((at - from) / 1000);
  return seconds > 0 ? seconds : undefined;
}
