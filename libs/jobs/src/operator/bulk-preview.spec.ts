import { memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { uuidv7 } from '../util/ids';
import { enqueueRequest } from '../../test/requests';
import { bulkJobs, previewBulk, type BulkFilter } from './bulk';

describe('previewBulk', () => {
  it('counts exactly the rows bulkJobs moves, whatever else the filter object carries', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = uuidv7(clock.now());
      ids.push(id);
      await driver.enqueue(
        enqueueRequest({
          id,
          runId: uuidv7(clock.now()),
          name: 'bulk-preview.job',
          queue: 'bulk-preview',
          input: { i },
          idempotencyKey: `k${i}`,
          runAt: clock.now(),
        }),
      );
    }
    // a list field a bulk call does not take (a JSON body, a JavaScript caller): the bulk walks the whole state
    const filter = { state: 'ready', queue: 'bulk-preview', idPrefix: ids[0] } as BulkFilter;

    const preview = await previewBulk(driver, 'remove', filter);
    expect(preview).toMatchObject({ matched: 3, more: false });
    expect(preview.sample.map((j) => j.id).sort()).toEqual([...ids].sort());
    expect(await bulkJobs(driver, 'remove', filter)).toMatchObject({ affected: 3, remaining: 0 });
    await driver.close();
  });
});

describe('previewBulk refuses what bulkJobs refuses', () => {
  // a dry run that says "would cover 3 rows, add --yes" when --yes is refused would mislead the operator
  it.each([
    ['requeue', 'ready', 'X_JOB_NOT_REQUEUEABLE'],
    ['remove', 'running', 'X_JOB_NOT_REMOVABLE'],
    ['promote', 'dead', 'X_JOB_NOT_PROMOTABLE'],
  ] as const)('a %s preview of %s rows is %s, as the bulk call is', async (action, state, code) => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const filter: BulkFilter = { state, queue: 'bulk-preview' };
    await expect(bulkJobs(driver, action, filter)).rejects.toMatchObject({ code });
    await expect(previewBulk(driver, action, filter)).rejects.toMatchObject({ code });
    await driver.close();
  });

  it('a state that is none of the eight is X_VALUE_INVALID on both, for every action', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    // a JSON body or a JavaScript caller can send any text as the state
    const filter = { state: 'zombie', queue: 'bulk-preview' } as unknown as BulkFilter;
    for (const action of ['requeue', 'remove', 'promote'] as const) {
      const code = 'X_VALUE_INVALID';
      await expect(bulkJobs(driver, action, filter)).rejects.toMatchObject({ code });
      await expect(previewBulk(driver, action, filter)).rejects.toMatchObject({ code });
    }
    await driver.close();
  });

  it('no state is X_VALUE_INVALID on both, for every action: the preview counts no rows the call would refuse', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    await driver.enqueue(enqueueRequest({ queue: 'bulk-preview' }));
    // a JSON body `{ action, filter: {} }` reaches the preview without a state
    const filter = { queue: 'bulk-preview' } as unknown as BulkFilter;
    for (const action of ['requeue', 'remove', 'promote'] as const) {
      const refusal = {
        code: 'X_VALUE_INVALID',
        message: expect.stringContaining('.state is required'),
      };
      await expect(bulkJobs(driver, action, filter)).rejects.toMatchObject(refusal);
      await expect(previewBulk(driver, action, filter)).rejects.toMatchObject(refusal);
    }
    await driver.close();
  });
});

describe('previewBulk narrows as bulkJobs does', () => {
  // a preview counting other tenants' or other jobs' rows would show an operator rows the call never moves
  it.each([
    ['tenant', { tenantId: 't-a' }],
    ['job name', { name: 'bulk-scope.a' }],
  ] as const)(
    'by %s: the preview covers exactly the rows the bulk call moves',
    async (_label, narrow) => {
      const clock = frozenClock();
      const driver = memoryJobDriver({ clock });
      let n = 0;
      for (const tenantId of ['t-a', 't-b']) {
        for (const name of ['bulk-scope.a', 'bulk-scope.b']) {
          n += 1;
          await driver.enqueue(
            enqueueRequest({
              id: uuidv7(clock.now() + n),
              runId: uuidv7(clock.now() + n),
              name,
              queue: 'bulk-scope',
              input: { n },
              idempotencyKey: `k${n}`,
              tenantId,
              runAt: clock.now(),
            }),
          );
        }
      }
      const filter: BulkFilter = { state: 'ready', queue: 'bulk-scope', ...narrow };
      const preview = await previewBulk(driver, 'remove', filter);
      expect(preview).toMatchObject({ matched: 2, more: false });
      for (const row of preview.sample) expect(row).toMatchObject(narrow);
      expect(await bulkJobs(driver, 'remove', filter)).toMatchObject({ affected: 2, remaining: 0 });
      await driver.close();
    },
  );
});
