/**
 * The scratch app: one npm install per Nest line (a directory outside the repository), and inside it one directory per
 * module setting holding the README's files, its tsconfig with that setting, and a `package.json` naming the module
 * type. Each is compiled with the app's own `tsc` and `skipLibCheck: false`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runOk } from './proc.mjs';

/** The module settings a consumer may compile with (Nest 12 is ESM-only: `node16` works from an ES-module app only). */
export const VARIANTS = [
  {
    id: 'node16-esm',
    label: 'node16, ES module app',
    type: 'module',
    module: 'node16',
    resolution: 'node16',
  },
  {
    id: 'nodenext-cjs',
    label: 'nodenext, CommonJS app',
    type: 'commonjs',
    module: 'nodenext',
    resolution: 'nodenext',
  },
  {
    id: 'node10-cjs',
    label: 'commonjs + node10',
    type: 'commonjs',
    module: 'commonjs',
    resolution: 'node10',
  },
];

/**
 * Not from the README, beside its files in `src/` so one `tsc` run compiles both: the other published entry points —
 * `/testing`, the jobs-pg exports an outbox setup uses, the outbox's structural TypeORM types with no `typeorm`
 * installed — compiled under the same setting, then run. Nothing of the app imports it.
 */
const CHECKS_FILE = 'src/pack-smoke-checks.ts';
const CHECKS = `import { OutboxModule, currentEntityManager, type OutboxDataSource } from '@ultimat3/jobs';
import { frozenClock, runJobs } from '@ultimat3/jobs/testing';
import { postgresOutboxStore, typeormExecutor } from '@ultimat3/jobs-pg';

const store = (dataSource: OutboxDataSource) =>
  postgresOutboxStore({ executor: typeormExecutor(dataSource) });
const outbox = OutboxModule.forRoot({ dataSource: 'DataSource', store });
console.log(
  JSON.stringify({
    outbox: outbox.module.name,
    manager: currentEntityManager() ?? null,
    now: frozenClock(0).now(),
    runJobs: typeof runJobs,
  }),
);
`;
export const CHECKS_OUTPUT =
  '{"outbox":"OutboxModule","manager":null,"now":0,"runJobs":"function"}';

const INSTALL_TIMEOUT_MS = 300_000;
const TSC_TIMEOUT_MS = 180_000;

/** `npm install` of the README's packages into `dir`, with `specs` mapping each name to what to install. */
export async function installApp(dir, names, specs) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'pack-smoke-app', private: true }, null, 2)}\n`,
  );
  const args = names.map((name) => specs[name] ?? name);
  await runOk('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...args], {
    cwd: dir,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  return args;
}

/** The installed version of `name` in the app at `dir`. */
export function installedVersion(dir, name) {
  return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Writes one variant of the app under `appDir` and compiles it (and the entry-point checks). Answers its directory. */
export async function compileVariant(appDir, variant, readme) {
  const dir = join(appDir, variant.id);
  const write = (path, text) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', `${JSON.stringify({ private: true, type: variant.type }, null, 2)}\n`);
  for (const [path, text] of Object.entries(readme.files)) write(path, text);
  const compilerOptions = {
    ...readme.tsconfig.compilerOptions,
    module: variant.module,
    moduleResolution: variant.resolution,
    skipLibCheck: false,
  };
  write('tsconfig.json', `${JSON.stringify({ ...readme.tsconfig, compilerOptions }, null, 2)}\n`);
  write(CHECKS_FILE, CHECKS);
  const tsc = join(appDir, 'node_modules', 'typescript', 'bin', 'tsc');
  await runOk('node', [tsc, '-p', 'tsconfig.json'], { cwd: dir, timeoutMs: TSC_TIMEOUT_MS });
  const compiled = CHECKS_FILE.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js');
  const output = (await runOk('node', [compiled], { cwd: dir, timeoutMs: 30_000 })).trim();
  if (output !== CHECKS_OUTPUT)
    throw new Error(`${compiled} printed ${output}, expected ${CHECKS_OUTPUT}`);
  return dir;
}
