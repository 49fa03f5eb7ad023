'use strict';
// The outbox scene of the example runner (scripts/run-example.js).
const { RUN_TIMEOUT_MS, poll, json, postJson, fatal } = require('./http');

/**
 * The transactional outbox: a post and its notifySubscribers job commit together (the worker's relay publishes the
 * job, a worker runs it), and a request that fails after its enqueue leaves neither.
 */
async function publishPosts(base, orgId, store) {
  const posts = `${base}/orgs/${orgId}/posts`;
  const title = 'Hello, subscribers';
  console.log(
    `\nPOST /orgs/${orgId}/posts saves a post and enqueues notifySubscribers in ONE transaction (OutboxInterceptor).`,
  );
  const committedAt = Date.now();
  const published = await postJson(posts, { title });
  if (published.status !== 201) {
    throw new Error(
      `POST ${posts} answered ${published.status}: ${JSON.stringify(published.body)}`,
    );
  }
  const { post, job } = published.body;
  console.log(`  → 201: post ${post.id} "${post.title}", job ${job.id}`);
  console.log(
    `  Committed: the job waits in x_outbox (PostgreSQL) until the relay in the worker process publishes it${store === 'Redis' ? ' onto Redis' : ''}.`,
  );
  const done = await poll('the notifySubscribers job to be done', RUN_TIMEOUT_MS, async () => {
    const current = await json(`${base}/jobs/${job.id}`); // 404 until the relay published it
    if (['failed', 'dead', 'cancelled'].includes(current.state)) {
      throw fatal(`job ${job.id} ended ${current.state}: ${current.lastError}`);
    }
    return current.state === 'done' ? current : undefined;
  });
  const steps = await json(`${base}/jobs/${job.id}/steps`);
  console.log(
    `  Job ${done.id} (${done.name}, tenant ${done.tenantId}) is ${done.state} ${Date.now() - committedAt} ms after the commit (relay wake or poll, then the run):`,
  );
  for (const step of steps) {
    const output = Array.isArray(step.output)
      ? `${step.output.length} subscribers`
      : (step.output?.to ?? JSON.stringify(step.output));
    console.log(`    ✓ ${step.name} → ${output}`);
  }

  console.log(`\nPOST /orgs/${orgId}/posts?fail=1 throws after the same save and enqueue.`);
  const failed = await postJson(`${posts}?fail=1`, { title: 'Never published' });
  const rolledBack = failed.body.rolledBack;
  if (failed.status !== 500 || rolledBack === undefined) {
    throw new Error(
      `POST ${posts}?fail=1 answered ${failed.status}, not the 500 naming what rolled back: ${JSON.stringify(failed.body)}`,
    );
  }
  console.log(`  → ${failed.status}: ${failed.body.message}`);
  const listed = await json(posts);
  if (listed.some((p) => p.id === rolledBack.postId)) {
    throw new Error(`post ${rolledBack.postId} is listed although its request failed`);
  }
  console.log(
    `  GET /orgs/${orgId}/posts → ${listed.length} post(s): ${listed.map((p) => `"${p.title}"`).join(', ')} — no post ${rolledBack.postId}.`,
  );
  const ghost = await fetch(`${base}/jobs/${rolledBack.jobId}`);
  if (ghost.status !== 404) {
    throw new Error(`GET /jobs/${rolledBack.jobId} answered ${ghost.status}, not 404`);
  }
  console.log(
    `  GET /jobs/${rolledBack.jobId} → 404: its outbox row rolled back with the post, so no relay will ever publish it.`,
  );
}

module.exports = { publishPosts };
