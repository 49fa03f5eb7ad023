/** Child processes with a deadline: every step of the smoke is bounded, and a failure carries its output. */
import { spawn } from 'node:child_process';

/**
 * The environment without what `npm run` adds (`npm_config_local_prefix`, `npm_package_*`, …): an `npm install` in the
 * scratch app must not take this repository for its project.
 */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  return { ...env, ...extra };
}

/** The last `lines` lines of `text`, for an error message. */
export function tail(text, lines = 40) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * Runs `command args` in `cwd` and answers `{ code, signal, output }` (stdout and stderr interleaved). Killed — with
 * its process group — after `timeoutMs`, which answers `timedOut: true`.
 */
export function run(command, args, { cwd, env = cleanEnv(), timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk) => (output += chunk);
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output, timedOut });
    });
  });
}

/** Runs a command that must succeed; throws with its output's tail otherwise. */
export async function runOk(command, args, options) {
  const result = await run(command, args, options);
  if (result.timedOut) {
    throw new Error(
      `${command} ${args.join(' ')} timed out after ${options.timeoutMs} ms\n${tail(result.output)}`,
    );
  }
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.code ?? result.signal}\n${tail(result.output)}`,
    );
  }
  return result.output;
}

/** Signals a detached child's whole process group (npm and tsc start their own children). */
export function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
