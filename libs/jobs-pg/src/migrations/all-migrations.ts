import { MIGRATION_0001_JOBS } from './0001_jobs.sql';
import { MIGRATION_0002_OUTBOX } from './0002_outbox.sql';
import { MIGRATION_0003_CLAIM_BY_NAME } from './0003_claim_by_name.sql';
import { MIGRATION_0004_INTEGRITY } from './0004_integrity.sql';
import { MIGRATION_0005_EXACT_JSON } from './0005_exact_json.sql';
import { MIGRATION_0006_RETENTION } from './0006_retention.sql';
import { MIGRATION_0007_COUNTED_CANCELS } from './0007_counted_cancels.sql';
import { MIGRATION_0008_EXACT_EVENT_PAYLOADS } from './0008_exact_event_payloads.sql';
import { MIGRATION_0009_WEBHOOK_LEDGER } from './0009_webhook_ledger.sql';
import { MIGRATION_0010_CREATED_STRAYS } from './0010_created_strays.sql';
import { MIGRATION_0011_STATS_COUNTS } from './0011_stats_counts.sql';
import { MIGRATION_0012_CHEAP_STRAY_PREDICATE } from './0012_cheap_stray_predicate.sql';
import { MIGRATION_0013_JOBS_FILLFACTOR } from './0013_jobs_fillfactor.sql';
import { MIGRATION_0014_CLAIM_INDEX_CARRIES_STATE } from './0014_claim_index_carries_state.sql';
import { MIGRATION_0015_STATE_CHECK_CONSTANT } from './0015_state_check_constant.sql';
import { MIGRATION_0016_ONE_ARM_STRAY_PREDICATE } from './0016_one_arm_stray_predicate.sql';
import { MIGRATION_0017_LIVE_KEY_INDEX_LEADS_WITH_KEY } from './0017_live_key_index_leads_with_key.sql';
import { MIGRATION_0018_HAND_OFFS } from './0018_hand_offs.sql';

/** One numbered, append-only migration. */
export interface JobsMigration {
  /** Its number: the order it applies in, and its key in `x_migrations`. */
  readonly id: number;
  /** Its name, recorded in `x_migrations`. */
  readonly name: string;
  /** The DDL, any number of statements. */
  readonly sql: string;
}

/** Every migration, in order. Append only: a released entry is never edited. */
export const JOBS_MIGRATIONS: readonly JobsMigration[] = [
  { id: 1, name: '0001_jobs', sql: MIGRATION_0001_JOBS },
  { id: 2, name: '0002_outbox', sql: MIGRATION_0002_OUTBOX },
  { id: 3, name: '0003_claim_by_name', sql: MIGRATION_0003_CLAIM_BY_NAME },
  { id: 4, name: '0004_integrity', sql: MIGRATION_0004_INTEGRITY },
  { id: 5, name: '0005_exact_json', sql: MIGRATION_0005_EXACT_JSON },
  { id: 6, name: '0006_retention', sql: MIGRATION_0006_RETENTION },
  { id: 7, name: '0007_counted_cancels', sql: MIGRATION_0007_COUNTED_CANCELS },
  { id: 8, name: '0008_exact_event_payloads', sql: MIGRATION_0008_EXACT_EVENT_PAYLOADS },
  { id: 9, name: '0009_webhook_ledger', sql: MIGRATION_0009_WEBHOOK_LEDGER },
  { id: 10, name: '0010_created_strays', sql: MIGRATION_0010_CREATED_STRAYS },
  { id: 11, name: '0011_stats_counts', sql: MIGRATION_0011_STATS_COUNTS },
  { id: 12, name: '0012_cheap_stray_predicate', sql: MIGRATION_0012_CHEAP_STRAY_PREDICATE },
  { id: 13, name: '0013_jobs_fillfactor', sql: MIGRATION_0013_JOBS_FILLFACTOR },
  {
    id: 14,
    name: '0014_claim_index_carries_state',
    sql: MIGRATION_0014_CLAIM_INDEX_CARRIES_STATE,
  },
  { id: 15, name: '0015_state_check_constant', sql: MIGRATION_0015_STATE_CHECK_CONSTANT },
  { id: 16, name: '0016_one_arm_stray_predicate', sql: MIGRATION_0016_ONE_ARM_STRAY_PREDICATE },
  {
    id: 17,
    name: '0017_live_key_index_leads_with_key',
    sql: MIGRATION_0017_LIVE_KEY_INDEX_LEADS_WITH_KEY,
  },
  { id: 18, name: '0018_hand_offs', sql: MIGRATION_0018_HAND_OFFS },
];
