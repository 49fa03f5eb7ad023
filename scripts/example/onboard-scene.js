'use strict';
// The onboarding scene and the scheduler's listing of the example runner (scripts/run-example.js).
const { randomUUID } = require('node:crypto');
const { RUN_TIMEOUT_MS, poll, json } = require('./http');

/**
 * Onboards a new org over HTTP (the web process only writes the row), waits until the worker parked the job on its
 * three-day sleep, prints its completed steps, and shows a second POST deduped onto the same job. Answers the org.
 */
async function onboard(base, store) {
  const orgId = randomUUID();
  const queued = await json(`${base}/orgs/${orgId}/onboard`, { method: 'POST' });
  console.log(`\nPOST /orgs/${orgId}/onboard → job ${queued.id} (deduped: ${queued.deduped})`);
  console.log(`The web process only wrote the row; the worker process claims it from ${store}.`);

  const row = await poll('the job to park on its sleep', RUN_TIMEOUT_MS, async () => {
    const current = await json(`${base}/jobs/${queued.id}`);
    return current.state === 'suspended' ? current : undefined;
  });
  const steps = await json(`${base}/jobs/${queued.id}/steps`);

  console.log(`\nJob ${row.id} (${row.name}, tenant ${row.tenantId}) is ${row.state}.`);
  console.log('Completed steps:');
  for (const step of steps) console.log(`  ✓ ${step.name} → ${JSON.stringify(step.output)}`);
  console.log(
    `It resumes at ${new Date(row.runAt).toISOString()} to send the nudge; no process waits for it —`,
  );
  console.log(`the row sleeps in ${store}, and any worker claims it when it is due.`);

  const again = await json(`${base}/orgs/${orgId}/onboard`, { method: 'POST' });
  console.log(
    `\nA second POST for the same org answers the same job: ${again.id} (deduped: ${again.deduped})`,
  );
  return orgId;
}

/** Prints GET /tasks: the scheduled tasks the worker process fires as the scheduler leader. */
async function printTasks(base) {
  const tasks = await json(`${base}/tasks`);
  console.log('\nGET /tasks (fired by the worker process, the scheduler leader):');
  for (const task of tasks) {
    console.log(
      `  ${task.name}: cron "${task.cron}" ${task.tz}, catch-up ${task.catchUp} → enqueues ${task.jobs.join(', ')}`,
    );
  }
}

module.exports = { onboard, printTasks };
