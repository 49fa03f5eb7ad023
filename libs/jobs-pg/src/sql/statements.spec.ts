import * as jobsPg from '../index';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';

/**
 * The exported statements PREPARE cannot take: the install script (DDL, many statements by design) and the ANALYZE, a
 * utility statement (`pg-young-table.spec.ts` runs it).
 */
const UNPREPARABLE = new Set(['SQL_JOBS_TABLE', 'SQL_JOBS_ANALYZE']);

/** Every `SQL_…` statement the package exports, but those. */
const statements = Object.entries(jobsPg).filter(
  (entry): entry is [string, string] =>
    entry[0].startsWith('SQL_') && !UNPREPARABLE.has(entry[0]) && typeof entry[1] === 'string',
);

describe('the exported SQL: one statement each, valid against the migrated schema', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('exports the statements the issue names, and every statement of the driver, outbox, events and scheduler', () => {
    const names = statements.map(([name]) => name);
    for (const name of ['SQL_CLAIM', 'SQL_ENQUEUE', 'SQL_ACK', 'SQL_NACK', 'SQL_HEARTBEAT']) {
      expect(names).toContain(name);
    }
    expect(names.length).toBeGreaterThanOrEqual(40);
  });

  /**
   * PREPAREs `text` through the extended protocol (a named Parse), which refuses a text holding two commands; the
   * PREPARE itself refuses a parameter whose type cannot be decided and a table or column the schema lacks.
   */
  async function prepare(name: string, text: string): Promise<void> {
    const client = await db.pool.connect();
    try {
      await client.query({ name: `check_${name}`, text: `prepare ${name} as ${text}`, values: [] });
      await client.query(`deallocate ${name}`);
    } finally {
      client.release();
    }
  }

  it('the check itself refuses two commands, an untyped parameter and an unknown column', async () => {
    await expect(prepare('two', 'select 1; select 2')).rejects.toThrow(/multiple commands/);
    await expect(prepare('untyped', 'select $1 + $2')).rejects.toThrow(/operator is not unique/);
    await expect(prepare('unknown', 'select nope from x_jobs')).rejects.toThrow(/does not exist/);
  });

  it.each(statements)('%s prepares: parsed and typed as ONE statement', async (name, text) => {
    await prepare(name.toLowerCase(), text);
  });
});
