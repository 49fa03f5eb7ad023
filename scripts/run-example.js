#!/usr/bin/env node
// Runs the built example app once, end to end: start it, onboard one org over HTTP, wait until the job is parked on
// its three-day sleep, print what happened, then stop the app with SIGTERM (the drain path a deploy takes).
// `npm run example` builds first; run it directly only after `npm run build`.
'use strict';

const { spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { createServer } = require('node:net');
const path = require('node:path');

const MAIN = path.join(__dirname, '..', 'apps', 'example', 'dist', 'main.js');
const START_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 10_000;

/** A free loopback port, unless PORT is set. */
function freePort() {
  if (process.env.PORT) return Promise.resolve(Number(process.env.PORT));
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `fn` every 100 ms until it answers something other than undefined, or fails after `timeoutMs`. */
async function poll(what, timeoutMs, fn) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

async function json(url, init) {
  const res = await fetch(url, init);
  const body = await res.json();
  if (!res.ok)
    throw new Error(
      `${init?.method ?? 'GET'} ${url} answered ${res.status}: ${JSON.stringify(body)}`,
    );
  return body;
}

function startApp(port) {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: String(port), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = (chunk) =>
    chunk
      .toString()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => `  app │ ${line}\n`)
      .join('');
  child.stdout.on('data', (chunk) => process.stdout.write(prefix(chunk)));
  child.stderr.on('data', (chunk) => process.stderr.write(prefix(chunk)));
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited };
}

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  console.log(`Starting the example app (${path.relative(process.cwd(), MAIN)}) on port ${port}…`);
  const { child, exited } = startApp(port);
  let running = true;
  void exited.then(() => {
    running = false;
  });

  try {
    await poll('the app to listen', START_TIMEOUT_MS, async () => {
      if (!running) throw new Error('the example app exited during startup');
      return json(`${base}/jobs`);
    }).catch((error) => {
      if (!running) throw new Error('the example app exited during startup (see its output above)');
      throw error;
    });

    const orgId = randomUUID();
    const queued = await json(`${base}/orgs/${orgId}/onboard`, { method: 'POST' });
    console.log(`\nPOST /orgs/${orgId}/onboard → job ${queued.id} (deduped: ${queued.deduped})`);

    const row = await poll('the job to park on its sleep', RUN_TIMEOUT_MS, async () => {
      const current = await json(`${base}/jobs/${queued.id}`);
      return current.state === 'suspended' ? current : undefined;
    });
    const steps = await json(`${base}/jobs/${queued.id}/steps`);

    console.log(`\nJob ${row.id} (${row.name}, tenant ${row.tenantId}) is ${row.state}.`);
    console.log('Completed steps:');
    for (const step of steps) console.log(`  ✓ ${step.name} → ${JSON.stringify(step.output)}`);
    console.log(
      `It resumes at ${new Date(row.runAt).toISOString()} to send the nudge; no process waits for it.`,
    );

    const again = await json(`${base}/orgs/${orgId}/onboard`, { method: 'POST' });
    console.log(
      `\nA second POST for the same org answers the same job: ${again.id} (deduped: ${again.deduped})`,
    );
  } finally {
    if (running) {
      console.log('\nStopping the app with SIGTERM…');
      child.kill('SIGTERM');
    }
    const { code, signal } = await exited;
    console.log(`The app exited (${signal ?? `code ${code}`}).`);
  }
}

main().catch((error) => {
  console.error(`\nrun-example failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
