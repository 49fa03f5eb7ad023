import { InvariantError } from '../errors/runtime-errors';
import type { MemoryOutboxRow } from './memory-outbox-row';
import type { MemoryOutboxTx } from './memory-outbox-store';

/** A transaction of the memory outbox store: the rows staged in it, handed to its table's `land` on commit. */
export class MemoryTx implements MemoryOutboxTx {
  readonly staged: MemoryOutboxRow[] = [];
  state: 'open' | 'committed' | 'rolled-back' = 'open';

  /** `table`: the store's table, which alone may stage in this transaction, and where its rows land. */
  constructor(readonly table: { land(rows: readonly MemoryOutboxRow[]): void }) {}

  /** Lands the staged rows; a landing refused (a row another transaction committed first) rolls this one back. */
  commit(): void {
    this.finish('committed');
    try {
      this.table.land(this.staged);
    } catch (error) {
      this.state = 'rolled-back';
      throw error;
    }
  }

  rollback(): void {
    this.finish('rolled-back');
  }

  private finish(state: 'committed' | 'rolled-back'): void {
    if (this.state !== 'open')
      throw new InvariantError(`memory outbox tx is already ${this.state}.`);
    this.state = state;
  }
}
