/**
 * The served queues a worker owes a claim when a run gives its slot back: those where rows may wait that no claim
 * sent since could have seen.
 *
 * A claim's snapshot sees every row committed before it was sent, and a claim that came back with fewer rows than it
 * asked a queue for left nothing claimable there. From then on a row becomes claimable in one of two ways the worker
 * hears of — announced (a wake, a sweep, an in-process enqueue: each runs a pass and so {@link OwedQueues.oweAll}) or
 * falling due by time (a hand-back's due timer, the poll: passes too) — or in ways it does not hear of (a row due
 * later than the wake's window, another worker's retry falling due, a lapsed lease), which the poll finds, as it
 * finds them for an idle worker. So a run that ends when nothing is owed needs no claim: the claim it used to send
 * found nothing, and with a proven wake it is the one statement a job a worker fed by hand-offs sent for nothing.
 *
 * Owed, per queue, from: the worker's start and any signal (every served queue), a claim that came back with all it
 * asked a queue for (more may wait), a claim that skipped tenants at their cap or threw (its queues), and a hand-back
 * of rows due now that landed (their queue). A queue is owed nothing once a claim asking it is sent.
 */
export class OwedQueues {
  /** Every served queue is owed (the start, a signal): {@link OwedQueues.sent} turns it into the queues left out. */
  private all = true;
  private readonly queues = new Set<string>();

  /** Rows may have become claimable in any served queue: a signal, a timer, the start. */
  oweAll(): void {
    this.all = true;
  }

  /** Rows of `queue` may wait that no claim on its way can see. */
  owe(queue: string): void {
    this.queues.add(queue);
  }

  /** A claim asking `asked` was sent: they are owed nothing; the other served queues (of `served`) keep their debt. */
  sent(asked: Iterable<string>, served: Iterable<string>): void {
    if (this.all) {
      this.all = false;
      for (const queue of served) this.queues.add(queue);
    }
    for (const queue of asked) this.queues.delete(queue);
  }

  /** Whether any queue is owed a claim. */
  any(): boolean {
    return this.all || this.queues.size > 0;
  }
}
