/**
 * `pickup-trace.mjs`'s arithmetic: a traced job's legs from the producer's and the worker's notes, matched by the
 * job's `n`, and what the slowest jobs spent in each.
 */
import { percentile } from './lib.mjs';

/** The last of the sorted `times` at or before `at`, or undefined. */
function lastAtOrBefore(times, at) {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  return times[lo - 1];
}

/**
 * Per job the producer sent (`{ n, call, sent, back }`) and the worker started (`seen.bodies`), its legs in ms. The
 * wake a job is measured to is the latest notification the worker heard before the claim that took it was sent, when it
 * came after the job's INSERT was sent (a commit notifies no earlier): the wake that claim answered. A job a claim took
 * with no such wake (a poll, a sweep, a pass a freed slot ran) has no wake legs; `commit answered → wake heard` is
 * negative when the worker heard the wake before the producer read its commit's answer. A job handed to the worker by
 * its enqueue goes to `handed` instead (its own legs and total). Answers `{ legs, total, rows, counts, handed }`
 * (`rows`: per job a claim took, its legs and total).
 */
export function traceLegs(produced, seen) {
  const bodies = new Map(seen.bodies.map((b) => [b.n, b]));
  const wakes = [...seen.wakes].sort((a, b) => a - b);
  const legs = {
    'call → INSERT sent': [],
    'INSERT sent → commit answered': [],
    'commit answered → wake heard': [],
    'wake heard → claim sent': [],
    'claim sent → answered': [],
    'claim answered → body': [],
  };
  const names = Object.keys(legs);
  /** The legs of a job handed to the worker by its enqueue: no wake, no claim of the worker's own. */
  const handed = {
    'call → INSERT sent': [],
    'INSERT sent → commit answered': [],
    'commit answered → row heard': [],
    'row heard → body': [],
    'call → body (handed)': [],
  };
  const total = [];
  const rows = [];
  let afterWake = 0;
  let beforeWake = 0;
  for (const job of produced) {
    const body = bodies.get(job.n);
    if (body !== undefined && job.sent !== undefined && body.handed !== undefined) {
      const values = [
        job.sent - job.call,
        job.back - job.sent,
        body.handed - job.back,
        body.body - body.handed,
        body.body - job.call,
      ];
      Object.values(handed).forEach((xs, i) => xs.push(values[i]));
      continue;
    }
    if (body === undefined || job.sent === undefined || body.claimSent === undefined) continue;
    const latest = lastAtOrBefore(wakes, body.claimSent);
    const heard = latest !== undefined && latest >= job.sent ? latest : Number.NaN;
    if (Number.isFinite(heard)) afterWake++;
    else beforeWake++;
    const values = [
      job.sent - job.call,
      job.back - job.sent,
      heard - job.back,
      body.claimSent - heard,
      body.claimBack - body.claimSent,
      body.body - body.claimBack,
    ];
    values.forEach((v, i) => Number.isFinite(v) && legs[names[i]].push(v));
    total.push(body.body - job.call);
    rows.push({ values, total: body.body - job.call });
  }
  const took = seen.claims.filter((c) => c.rows > 0);
  const busy = seen.claims.filter((c) => c.wire > 0 || c.waiting > 0).length;
  const counts = {
    wakes: wakes.length,
    sweeps: (seen.sweeps ?? []).length,
    claims: seen.claims.length,
    fullClaims: seen.claims.filter((c) => c.full).length,
    emptyClaims: seen.claims.length - took.length,
    rowsPerClaim: took.reduce((sum, c) => sum + c.rows, 0) / Math.max(1, took.length),
    maxRows: Math.max(0, ...took.map((c) => c.rows)),
    afterWake,
    beforeWake,
    busy,
  };
  return { legs, total, rows, counts, names, handed };
}

/** For the jobs at or above the `p`-th percentile of total wait: the mean of each leg, and that threshold. */
export function tailShares({ rows, total, names }, p) {
  const threshold = percentile(total, p);
  const slow = rows.filter((r) => r.total >= threshold);
  const means = {};
  names.forEach((name, i) => {
    const xs = slow.map((r) => r.values[i]).filter(Number.isFinite);
    means[name] = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  });
  return { threshold, means };
}
