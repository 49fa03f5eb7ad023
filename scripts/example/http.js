'use strict';
// HTTP and waiting helpers of the example runner (scripts/run-example.js).
const { createServer } = require('node:net');

/** How long a job of the example may take to reach the state the runner waits for. */
const RUN_TIMEOUT_MS = 20_000;

/** A free loopback port, unless `preset` (an environment variable's value) names one. */
function freePort(preset) {
  if (preset) return Promise.resolve(Number(preset));
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
    const value = await fn().catch((error) => {
      if (error && error.fatal) throw error;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

/** A request answering its parsed JSON body; a status other than 2xx fails with the body. */
async function json(url, init) {
  const res = await fetch(url, init);
  const body = await res.json();
  if (!res.ok)
    throw new Error(
      `${init?.method ?? 'GET'} ${url} answered ${res.status}: ${JSON.stringify(body)}`,
    );
  return body;
}

/** A POST with a JSON body: the response's status and parsed body, whatever the status. */
async function postJson(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Fails the run at once: `poll` rethrows it instead of retrying. */
function fatal(message) {
  return Object.assign(new Error(message), { fatal: true });
}

module.exports = { RUN_TIMEOUT_MS, freePort, pause, poll, json, postJson, fatal };
