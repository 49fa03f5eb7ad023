'use strict';
// The backfill scene of the example runner (scripts/run-example.js).
const { RUN_TIMEOUT_MS, poll, json, postJson, fatal } = require('./http');

/**
 * The backfill: the web app ran the example's TypeORM migrations at boot (the second adds `posts.slug`, null on every
 * row so far); `POST /backfills/posts.slug` gates the `posts.slug` backfill — that migration applied, no pass running,
 * none completed — and queues it; the worker sweeps the posts in keyset pages. A pass completed by an earlier run
 * answers 409 X_BACKFILL_APPLIED: this run's posts are swept with `force`, into a new ledger row.
 */
async function sweepSlugs(base, orgId) {
  const name = 'posts.slug';
  const url = `${base}/backfills/${name}`;
  console.log(
    `\nPOST /backfills/${name}: the gate (its migration applied, nothing running or completed), then the enqueue.`,
  );
  let triggered = await postJson(url, {});
  if (triggered.status === 409 && triggered.body.code === 'X_BACKFILL_APPLIED') {
    const [previous] = await json(url);
    console.log(
      `  → 409 X_BACKFILL_APPLIED: an earlier run's pass completed (${previous.rows} row(s), ${previous.completedAt}).`,
    );
    console.log(
      '  This run published a post with no slug: again with { force: true }, into a new ledger row.',
    );
    triggered = await postJson(url, { force: true });
  }
  if (triggered.status !== 202) {
    throw new Error(`POST ${url} answered ${triggered.status}: ${JSON.stringify(triggered.body)}`);
  }
  const { job, requires, environment } = triggered.body;
  console.log(
    `  → 202: migration ${requires} applied, environment ${environment}; job ${job.id} queued for the worker.`,
  );
  const done = await poll(`the ${name} pass to complete`, RUN_TIMEOUT_MS, async () => {
    const current = await json(`${base}/jobs/${job.id}`);
    if (['failed', 'dead', 'cancelled'].includes(current.state)) {
      throw fatal(`backfill job ${job.id} ended ${current.state}: ${current.lastError}`);
    }
    return current.state === 'done' ? current : undefined;
  });
  const pass = (await json(url)).find((p) => p.jobId === done.id);
  if (pass === undefined || pass.status !== 'completed') {
    throw new Error(`no completed ledger row for job ${done.id}: ${JSON.stringify(pass)}`);
  }
  console.log(
    `  The worker swept ${pass.rows} row(s) in ${pass.batches} batch(es); ledger row ${pass.status} (run ${pass.runId}).`,
  );
  const posts = await json(`${base}/orgs/${orgId}/posts`);
  if (posts.some((p) => p.slug === null)) {
    throw new Error(`a post still has no slug after the pass: ${JSON.stringify(posts)}`);
  }
  for (const post of posts) console.log(`    ✓ "${post.title}" → slug ${post.slug}`);
}

module.exports = { sweepSlugs };
