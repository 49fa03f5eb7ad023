import { JOBS_TABLES } from '../schema';
import { SQL_JOBS_TABLE } from './install-script';

/** The part of a TypeORM `QueryRunner` a migration calls. Structural: this file imports nothing from `typeorm`. */
export interface MigrationQueryRunnerLike {
  /** Runs one statement with its parameters. */
  query(query: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * The job tables as a TypeORM migration: add it to the DataSource's `migrations` and `migration:run` installs them
 * alongside the app's own. `up` runs {@link SQL_JOBS_TABLE} — the locked, ledgered install `migrate()` runs, inside
 * TypeORM's transaction — so an app may use both without applying anything twice. `down` drops every job table.
 */
export class JobsMigration1700000000000 {
  /** The migration's name, as TypeORM records it. */
  readonly name = 'JobsMigration1700000000000';

  /** Installs the job tables: runs {@link SQL_JOBS_TABLE} in TypeORM's transaction. */
  async up(queryRunner: MigrationQueryRunnerLike): Promise<void> {
    await queryRunner.query(SQL_JOBS_TABLE);
  }

  /** Drops every job table. */
  async down(queryRunner: MigrationQueryRunnerLike): Promise<void> {
    await queryRunner.query(`drop table if exists ${JOBS_TABLES.join(', ')} cascade`);
  }
}
