import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs } from '../testing/run-jobs';
import { uuidv7 } from '../util/ids';
import { enqueueRequest } from '../../test/requests';

const add = job({
  name: 'claim-bad-row.add',
  queue: 'adds',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `add:${n}`,
  tenant: 'none',
  retry: { attempts: 3 },
  run: ({ input }) => Promise.resolve(input.n + 1),
});

describe('a claim batch with one row whose stored input the job refuses', () => {
  it('runs the others; the bad row alone fails (X_JOB_INPUT_INVALID) and takes the retry path', async () => {
    const h = await runJobs({ jobs: [add], installFacade: false });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const id = uuidv7(h.clock.now() + i);
        ids.push(id);
        // written under the driver, as a row an older build stored: the schema refuses { n: 'two' }
        await h.driver.enqueue(
          enqueueRequest({
            id,
            name: add.name,
            queue: add.queue,
            input: { n: i === 2 ? 'two' : i },
            idempotencyKey: `add:${i}`,
            runAt: h.clock.now(),
          }),
        );
      }
      h.worker.signalEnqueued(add.queue);
      await h.settle();
      const rows = await Promise.all(ids.map((id) => h.driver.get(id)));
      expect(rows.map((r) => r?.state)).toEqual(['done', 'done', 'delayed', 'done', 'done']);
      expect(rows[2]).toMatchObject({ attempt: 1 });
      expect(rows[2]?.lastError).toMatch(/^X_JOB_INPUT_INVALID/);
    } finally {
      await h.close();
    }
  });
});
