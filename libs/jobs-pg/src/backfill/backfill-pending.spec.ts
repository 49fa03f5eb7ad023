import 'reflect-metadata';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import {
  assertNothingPending,
  backfill,
  gateBackfill,
  isBackfill,
  job,
  ledgerRunsOf,
  pendingBackfills,
  purge,
  readAppliedMigrations,
  registeredBackfills,
  t,
  type BackfillDescriptor,
  type BackfillLedger,
} from '@ultimat3/jobs';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresBackfillLedger } from './pg-backfill-ledger';

class AddPublishAt1786708800000 implements MigrationInterface {
  name = 'AddPublishAt1786708800000';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('create table pending_posts (id int primary key, publish_at timestamptz)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('drop table pending_posts');
  }
}

let db: TestDatabase;
let app: DataSource;
let ledger: BackfillLedger;

beforeAll(async () => {
  db = await createTestDatabase();
  app = new DataSource({ type: 'postgres', url: db.url, migrations: [AddPublishAt1786708800000] });
  await app.initialize();
  ledger = postgresBackfillLedger({ executor: db.executor });
});
afterAll(async () => {
  await app?.destroy();
  await db?.drop();
});

const noop = {
  tenant: 'none' as const,
  source: () => ({ repository: app.getRepository('pending_posts') }),
  handle: () => undefined,
};
const swept = backfill({ ...noop, name: 'pending-swept' });
const failing = backfill({ ...noop, name: 'pending-failing' });
const inFlight = backfill({ ...noop, name: 'pending-in-flight' });
const never = backfill({ ...noop, name: 'pending-never', requires: 'AddPublishAt1786708800000' });
const prodOnly = backfill({ ...noop, name: 'pending-prod-only', environments: ['production'] });

let n = 0;
const uuid = () => `01950000-0000-7000-8000-${String(++n).padStart(12, '0')}`;

/** A pass of `name` recorded in the ledger as it ended. */
async function recordPass(name: string, status: 'running' | 'completed' | 'failed', at: number) {
  const id = uuid();
  const row = await ledger.begin({
    id,
    name,
    checksum: 'c',
    appVersion: null,
    jobId: uuid(),
    runId: uuid(),
    nowMs: at,
  });
  if (status !== 'running') {
    await ledger.finish(
      id,
      status,
      { rows: 1, batches: 1, lastCursor: [1], nowMs: at + 1 },
      status === 'failed' ? 'boom' : null,
    );
  }
  return row;
}

describe('what was declared against what ran', () => {
  let declarations: BackfillDescriptor[];
  beforeAll(async () => {
    declarations = registeredBackfills();
    await recordPass('pending-swept', 'completed', 1_000);
    await recordPass('pending-failing', 'completed', 1_000);
    await recordPass('pending-failing', 'failed', 2_000); // a forced rerun that failed
    await recordPass('pending-in-flight', 'running', 3_000);
    await recordPass('pending-removed-long-ago', 'completed', 500);
  });

  it('stamps every backfill() handle: registeredBackfills() lists them, isBackfill() tells them apart', () => {
    expect(declarations.map((d) => d.name)).toEqual([
      'pending-swept',
      'pending-failing',
      'pending-in-flight',
      'pending-never',
      'pending-prod-only',
    ]);
    expect(declarations[3]).toMatchObject({
      kind: 'backfill',
      requires: 'AddPublishAt1786708800000',
      environments: null,
      counts: false,
      batch: 1_000,
      rate: 5,
    });
    expect(declarations[3]?.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect([swept, failing, inFlight, never, prodOnly].every(isBackfill)).toBe(true);
    const plain = job({
      name: 'pending-plain',
      input: t.object({}),
      idempotencyKey: () => 'k',
      tenant: 'none',
    });
    const lookalike = { ...swept, kind: 'job' };
    expect(
      [plain, lookalike, purge({ name: 'pending-purge', targets: () => [] }), null].some(
        isBackfill,
      ),
    ).toBe(false);
  });

  it('reports pending / failed / running / completed / excluded, the unswept names and the orphans', async () => {
    const runs = await ledgerRunsOf(ledger, declarations);
    const report = pendingBackfills({
      declarations,
      runs: [...runs, ...(await ledger.list({ name: 'pending-removed-long-ago' }))],
      environment: 'staging',
    });
    expect(report.rows.map((r) => [r.name, r.state])).toEqual([
      ['pending-swept', 'completed'],
      ['pending-failing', 'failed'],
      ['pending-in-flight', 'running'],
      ['pending-never', 'pending'],
      ['pending-prod-only', 'excluded'],
    ]);
    expect(report.pending).toEqual(['pending-failing', 'pending-never']);
    expect(report.orphaned).toEqual(['pending-removed-long-ago']);
    expect(report.rows[0]?.checksumMoved).toBe(true); // recorded as 'c'
    expect(() => assertNothingPending(report)).toThrow(
      expect.objectContaining({
        code: 'X_BACKFILL_PENDING',
        meta: { names: ['pending-failing', 'pending-never'] },
      }),
    );
    const prod = pendingBackfills({ declarations, runs, environment: 'production' });
    expect(prod.rows.find((r) => r.name === 'pending-prod-only')?.state).toBe('pending');
  });

  it('gates a command: unknown, environment, migration, running, applied — and force past a completed pass', async () => {
    const runs = await ledgerRunsOf(ledger, declarations);
    const gate = (
      name: string,
      extra: { environment?: string; force?: boolean; applied?: string[] } = {},
    ) =>
      gateBackfill({
        name,
        declarations,
        runs,
        environment: extra.environment ?? 'staging',
        appliedMigrations: extra.applied ?? [],
        ...(extra.force === undefined ? {} : { force: extra.force }),
      });
    expect(() => gate('pending-nobody')).toThrow(
      expect.objectContaining({ code: 'X_BACKFILL_UNKNOWN' }),
    );
    expect(() => gate('pending-prod-only')).toThrow(
      expect.objectContaining({ code: 'X_BACKFILL_ENVIRONMENT' }),
    );
    expect(gate('pending-prod-only', { environment: 'production' }).name).toBe('pending-prod-only');
    expect(() => gate('pending-in-flight', { force: true })).toThrow(
      expect.objectContaining({ code: 'X_BACKFILL_RUNNING' }),
    );
    expect(() => gate('pending-swept')).toThrow(
      expect.objectContaining({ code: 'X_BACKFILL_APPLIED' }),
    );
    expect(gate('pending-swept', { force: true }).name).toBe('pending-swept');
    expect(gate('pending-failing', { force: true }).name).toBe('pending-failing');

    // requires is checked against the app's own TypeORM migrations table
    expect(await readAppliedMigrations(app)).toEqual([]);
    expect(() => gate('pending-never', { applied: [] })).toThrow(
      expect.objectContaining({ code: 'X_BACKFILL_MIGRATION_PENDING' }),
    );
    await app.runMigrations();
    const applied = await readAppliedMigrations(app);
    expect(applied).toEqual(['AddPublishAt1786708800000', '1786708800000']);
    expect(gate('pending-never', { applied }).name).toBe('pending-never');
  });
});

describe('the migrations table of a DataSource with a schema', () => {
  class AddSchemaPosts1786708800001 implements MigrationInterface {
    name = 'AddSchemaPosts1786708800001';
    async up(runner: QueryRunner): Promise<void> {
      await runner.query('create table tenant_app.schema_posts (id int primary key)');
    }
    async down(runner: QueryRunner): Promise<void> {
      await runner.query('drop table tenant_app.schema_posts');
    }
  }

  it('is read where TypeORM keeps it: in the schema, which the search_path need not carry', async () => {
    await db.executor.query('create schema tenant_app', []);
    const scoped = new DataSource({
      type: 'postgres',
      url: db.url,
      schema: 'tenant_app',
      migrations: [AddSchemaPosts1786708800001],
    });
    await scoped.initialize();
    try {
      await scoped.runMigrations();
      // the applied migration, not the public table's (or none, read as "migration pending")
      expect(await readAppliedMigrations(scoped)).toEqual([
        'AddSchemaPosts1786708800001',
        '1786708800001',
      ]);
    } finally {
      await scoped.destroy();
    }
  });
});
