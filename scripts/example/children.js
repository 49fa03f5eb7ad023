'use strict';
// The example's two processes, started and stopped by the runner (scripts/run-example.js).
const { spawn } = require('node:child_process');

const STOP_TIMEOUT_MS = 30_000;

/** Starts a built app as a child process, its output prefixed with `name`, and tracks whether it still runs. */
function startChild(name, main, env) {
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const state = { child, output: '', running: true, exited: undefined };
  const prefix = (chunk) =>
    chunk
      .toString()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => `  ${name.padEnd(6)} │ ${line}\n`)
      .join('');
  const take = (stream) => (chunk) => {
    state.output += chunk.toString();
    stream.write(prefix(chunk));
  };
  child.stdout.on('data', take(process.stdout));
  child.stderr.on('data', take(process.stderr));
  state.exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      state.running = false;
      resolve({ code, signal });
    }),
  );
  return state;
}

/** Fails the wait at once when the child is gone. */
function alive(state, name) {
  if (!state.running) {
    throw Object.assign(new Error(`the ${name} exited during startup (see its output above)`), {
      fatal: true,
    });
  }
}

/** SIGTERM, then wait for the exit (SIGKILL after STOP_TIMEOUT_MS). */
async function stop(state, name) {
  if (state.running) {
    console.log(`Stopping the ${name} with SIGTERM…`);
    state.child.kill('SIGTERM');
  }
  const timer = setTimeout(() => state.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  const { code, signal } = await state.exited;
  clearTimeout(timer);
  console.log(`The ${name} exited (${signal ?? `code ${code}`}).`);
  return code === 0;
}

module.exports = { startChild, alive, stop };
