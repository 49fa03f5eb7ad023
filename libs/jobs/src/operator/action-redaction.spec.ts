import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { mcpOperatorOver } from '../mcp/mcp-operator';
import { previewBulk } from './bulk';
import { inspectManifest } from './declarations';
import { cancelJob, promoteJob } from './job-actions';

describe('the rows a write answers are scrubbed as the lists are', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const card = '4111222233334444';
  /** One failed attempt leaves the card in the error text and the progress note, then backs off an hour. */
  const charge = job({
    name: 'action-redaction.charge',
    input: t.object({ order: t.string, card: t.string }),
    idempotencyKey: ({ order }) => order,
    tenant: 'none',
    retry: { attempts: 3, backoff: 'fixed', delay: 3_600_000, jitter: false },
    redact: ['card'],
    run({ input, progress }) {
      progress(1, 2, `charging ${input.card}`);
      throw new Error(`card ${input.card} declined`);
    },
  });
  const declarations = inspectManifest({ jobs: [charge] });

  /** A row backing off after its first attempt, its stored error text and note holding the card. */
  const backingOff = async (order: string): Promise<string> => {
    const { id } = await charge.enqueue({ order, card });
    await h!.settle();
    const row = await h!.driver.get(id);
    expect([row?.state, row?.lastError, row?.progress?.note]).toEqual([
      'delayed',
      expect.stringContaining(card),
      `charging ${card}`,
    ]);
    return id;
  };

  it('cancelJob, promoteJob and previewBulk given the declarations, and the MCP cancel_job, show no redacted value', async () => {
    h = await runJobs({ jobs: [charge] });
    const [a, b, c] = [await backingOff('a'), await backingOff('b'), await backingOff('c')];

    const preview = await previewBulk(h.driver, 'promote', { state: 'delayed' }, { declarations });
    expect(preview.sample).toHaveLength(3);
    const promoted = await promoteJob(h.driver, a, { declarations });
    const cancelled = await cancelJob(h.driver, b, 'r', { declarations });
    const viaMcp = await mcpOperatorOver({ driver: h.driver, declarations }).cancelJob(c);
    for (const view of [preview, promoted, cancelled, viaMcp]) {
      expect(JSON.stringify(view)).not.toContain(card);
      expect(JSON.stringify(view)).toContain('charging [redacted]');
    }
    expect(viaMcp.lastError).toContain('card [redacted] declined');
    // without the declarations the row is answered as written
    const raw = await previewBulk(h.driver, 'remove', { state: 'ready' });
    expect(raw.sample[0]?.lastError).toContain(card);
  });
});
