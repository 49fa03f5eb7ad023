import { InvariantError } from '../errors/runtime-errors';
import type { MemoryOutboxRow } from './memory-outbox-row';
import type { MemoryOutboxTx } from './memory-outbox-store';

/** A transaction of the memory outbox store: the rows staged in it, handed to `land` on commit. */
export class MemoryTx implements MemoryOutboxTx {
  readonly staged: MemoryOutboxRow[] = [];
  state: 'open' | 'committed' | 'rolled-back' = 'open';

  constructor(private readonly land: (rows: readonly MemoryOutboxRow[]) => void) {}

  commit(): void {
    this.finish('committed');
    this.land(this.staged);
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
