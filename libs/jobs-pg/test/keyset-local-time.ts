/**
 * The child of `keyset-local-time.spec.ts`, run under a `TZ` other than UTC: pages a table keyed by a
 * `timestamp without time zone` (which `pg` reads as the process's local time) through `readKeysetPage`, and prints
 * the ids it read and how the sweep ended as JSON (a `timestamptz` key beside them). `argv[2]` is the database URL.
 */
import 'reflect-metadata';
import { Column, CreateDateColumn, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { readKeysetPage, type KeysetCursor, type KeysetPage } from '@ultimat3/jobs';

@Entity('klt_events')
class KltEvent {
  @PrimaryColumn('int')
  id!: number;

  @Column({ type: 'timestamp', precision: 3 })
  at!: Date;

  @CreateDateColumn({ precision: 3 })
  createdAt!: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  atTz!: Date;
}

async function sweep(data: DataSource, key: string[]): Promise<{ ids: number[]; ended: string }> {
  const ids: number[] = [];
  let cursor: KeysetCursor | null = null;
  try {
    for (let i = 0; i < 20; i++) {
      const qb = data.getRepository(KltEvent).createQueryBuilder('e');
      const page: KeysetPage<KltEvent> = await readKeysetPage<KltEvent>('klt', qb, key, cursor, 2);
      ids.push(...page.rows.map((r) => r.id));
      if (page.rows.length < 2) return { ids, ended: 'done' };
      cursor = page.cursor;
    }
    return { ids, ended: 'still paging after 20 pages' };
  } catch (error) {
    return { ids, ended: (error as { code?: string }).code ?? String(error) };
  }
}

async function main(): Promise<void> {
  const data = new DataSource({
    type: 'postgres',
    url: process.argv[2],
    entities: [KltEvent],
    synchronize: true,
  });
  await data.initialize();
  try {
    await data.query('truncate klt_events');
    // an hour apart, as wall clocks: 01:00 … 12:00
    await data.query(
      `insert into klt_events (id, at, "createdAt", "atTz")
       select i, timestamp '2026-01-01 00:00' + i * interval '1 hour', timestamp '2026-01-01 00:00' + i * interval '1 hour',
         timestamptz '2026-01-01 00:00+00' + i * interval '1 hour'
       from generate_series(1, 12) i`,
    );
    const out = {
      at: await sweep(data, ['at', 'id']),
      createdAt: await sweep(data, ['createdAt']),
      atTz: await sweep(data, ['atTz']),
    };
    console.log(JSON.stringify(out));
  } finally {
    await data.destroy();
  }
}

void main();
