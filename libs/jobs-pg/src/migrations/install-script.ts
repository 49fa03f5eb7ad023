import { InvariantError } from '@ultimat3/jobs';
import { qualify, quoteSchema } from '../schema';
import { JOBS_MIGRATIONS, type JobsMigration } from './all-migrations';

/**
 * A transaction-scoped advisory lock key every installer takes first: installers that boot together apply
 * migrations one after the other, and each re-reads the ledger once it holds the lock. One key for every schema of a
 * database; installs are rare, and serialising them across schemas costs nothing.
 */
const LOCK = `hashtextextended('ultimat3-jobs:migrate', 0)`;

function applyStep(migration: JobsMigration): string {
  const tag = `$m${String(migration.id).padStart(4, '0')}$`;
  if (migration.sql.includes(tag)) {
    throw new InvariantError(
      `jobs-pg: migration ${migration.name} contains its own quote tag ${tag}.`,
    );
  }
  return `
  if not exists (select 1 from x_migrations where id = ${migration.id}) then
    execute ${tag}${migration.sql}${tag};
    insert into x_migrations (id, name) values (${migration.id}, '${migration.name}');
  end if;`;
}

/**
 * The whole install as ONE `do` block: take the advisory lock, create the `x_migrations` ledger, then apply each
 * migration the ledger lacks and record it. One statement, so it runs as one transaction under autocommit (the lock
 * is released at its commit) and joins the caller's transaction when there is one (a TypeORM migration). Safe to run
 * any number of times, from any number of processes at once.
 */
export function installScript(schema?: string): string {
  const createSchema =
    schema === undefined ? '' : `\n  create schema if not exists ${quoteSchema(schema)};`;
  const script = `do $install$
begin
  perform pg_advisory_xact_lock(${LOCK});${createSchema}
  create table if not exists x_migrations (
    id integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  );${JOBS_MIGRATIONS.map(applyStep).join('')}
end
$install$;
`;
  return qualify(script, schema);
}

/**
 * Every migration, for a manual install (`psql -f`) into the tables' default schema: the same idempotent, locked
 * `do` block {@link migrate} runs, so a later `migrate()` finds the ledger filled and applies nothing twice.
 */
export const SQL_JOBS_TABLE: string = installScript();
