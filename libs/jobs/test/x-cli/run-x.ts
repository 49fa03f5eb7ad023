import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** The repository root (this file is libs/jobs/test/x-cli/run-x.ts). */
export const ROOT = join(__dirname, '..', '..', '..', '..');
const REGISTER = join(ROOT, 'libs', 'jobs-pg', 'test', 'swc-register.js');
const X = join(ROOT, 'libs', 'jobs', 'src', 'cli', 'x.ts');
/** The fixture app, as `--app` names it (relative to the root, the CLI's working directory here). */
export const APP = 'libs/jobs/test/x-cli/app.ts';

/** What one `x` run answered. */
export interface XRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real `x` binary from its sources (`node -r swc-register libs/jobs/src/cli/x.ts …`), in the repository
 * root, with only `env` of the connection variables set: what an operator's shell runs, no build needed.
 */
export function runX(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<XRun> {
  const clean = { ...process.env };
  delete clean['DATABASE_URL'];
  delete clean['REDIS_URL'];
  delete clean['JOBS_DRIVER'];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', REGISTER, X, ...args],
      { cwd: ROOT, env: { ...clean, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs `x … --json`, expects exit 0 and answers the parsed output. */
export async function runXJson<T>(
  args: readonly string[],
  env?: Readonly<Record<string, string>>,
): Promise<T> {
  const run = await runX([...args, '--json'], env);
  if (run.code !== 0) throw new Error(`x ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}
