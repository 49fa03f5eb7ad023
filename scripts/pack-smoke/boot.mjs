/**
 * Boots one compiled variant of the scratch app the way its README says (`node dist/worker.js`), on one driver, and
 * drives it: once it has logged, enqueue the README's example job (through the preloaded harness), wait for the job's
 * own log line (the input's first string), release the harness's hold, give the process a moment, SIGTERM it and
 * expect exit 0. Answers `{ ok, note }`; `earlyExit` when the process ended on its own before the SIGTERM.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tail } from './proc.mjs';

const HARNESS = pathToFileURL(join(import.meta.dirname, 'child-harness.mjs')).href;
/** Boot, job and drain together (the drain's own deadline is 25 s). */
const BOOT_TIMEOUT_MS = 60_000;
/** How long the worker must stay up on its own after the harness lets go, before the SIGTERM. */
const ALONE_MS = 1_500;

function firstString(value) {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    for (const item of Object.values(value)) {
      const found = firstString(item);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** `{ dir, main, format, enqueue, env }` → the outcome of one boot. */
export function bootVariant({ dir, main, format, enqueue, env }) {
  const compiled = join(dir, main.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'));
  const module = join(dir, enqueue.file.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'));
  const marker = firstString(enqueue.input);
  const child = spawn(process.execPath, ['--import', HARNESS, compiled], {
    cwd: dir,
    env: {
      ...env,
      NO_COLOR: '1',
      PACK_SMOKE_ENQUEUE: JSON.stringify({
        module,
        format,
        handle: enqueue.handle,
        input: enqueue.input,
      }),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let phase = 'booting';
  const started = Date.now();
  let enqueuedAt = 0;
  let ranAt = 0;
  let settled = false;
  let alone;
  return new Promise((resolve) => {
    let deadline;
    const finish = (ok, note) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(alone);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve({ ok, note, output, earlyExit: phase === 'alone' });
    };
    deadline = setTimeout(
      () => finish(false, `timed out ${phase} after ${BOOT_TIMEOUT_MS} ms\n${tail(output)}`),
      BOOT_TIMEOUT_MS,
    );
    const release = () => {
      phase = 'alone';
      child.stdin.end(); // the harness lets go: from here the worker holds itself up, or not
      alone = setTimeout(() => {
        phase = 'draining';
        child.kill('SIGTERM');
      }, ALONE_MS);
    };
    const onLine = (line) => {
      if (phase === 'booting') {
        phase = 'enqueueing';
        child.stdin.write('enqueue\n');
      }
      if (line.startsWith('[pack-smoke] enqueue failed')) finish(false, `${line}\n${tail(output)}`);
      else if (line.startsWith('[pack-smoke] enqueued')) enqueuedAt = Date.now();
      else if (phase === 'enqueueing' && marker !== undefined && line.includes(marker))
        ranAt = Date.now();
      // the job may log before the enqueue's answer reaches the harness: wait for both, in either order
      if (phase === 'enqueueing' && enqueuedAt > 0 && ranAt > 0) release();
    };
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop();
      lines.forEach(onLine);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('close', (code, signal) => {
      const how = code === null ? `signal ${signal}` : `code ${code}`;
      const timing = `since start: enqueue answered at ${enqueuedAt - started} ms, job logged at ${ranAt - started} ms`;
      if (phase === 'draining') {
        if (code === 0) finish(true, `${timing}; exit 0 on SIGTERM`);
        else finish(false, `exited with ${how} on SIGTERM (expected 0)\n${tail(output)}`);
      } else if (phase === 'alone') {
        finish(
          code === 0,
          `${timing}; exited on its own (${how}) within ${ALONE_MS} ms of the harness letting go, before SIGTERM`,
        );
      } else {
        finish(false, `exited with ${how} while ${phase}\n${tail(output)}`);
      }
    });
    child.on('error', (error) => finish(false, `could not start: ${error.message}`));
  });
}
