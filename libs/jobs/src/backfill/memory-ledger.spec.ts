import { backfillLedgerConformance } from './testing/backfill-ledger.conformance';
import { memoryBackfillLedger } from './memory-ledger';

// the reference ledger passes the suite the stored ones pass (PostgreSQL and Redis run it in their packages)
backfillLedgerConformance('memory', async () => ({ ledger: memoryBackfillLedger() }));
