import { assertStepRecord, type JsonValue, type StepRecord, type StepStore } from '@ultimat3/jobs';
import type { RedisContext } from './redis-context';

/** One stored step as its JSON text holds it. */
interface StoredStep {
  readonly name: string;
  readonly output?: JsonValue;
  readonly attempt: number;
  readonly startedAt: number;
  readonly completedAt: number;
}

/** A stored step's JSON text as a {@link StepRecord}: an absent output (a step that returned nothing) stays absent. */
function toStep(text: string): StepRecord {
  const s = JSON.parse(text) as StoredStep;
  const step = {
    name: s.name,
    attempt: s.attempt,
    startedAt: s.startedAt,
    completedAt: s.completedAt,
  };
  return 'output' in s ? { ...step, output: s.output } : step;
}

/**
 * Durable steps: a list of JSON records per job, in completion order, read with one LRANGE; a save is fenced on the
 * claim exactly like an ack ({@link LUA_STEP_SAVE}). Each record is checked against the value contract first.
 */
export function redisSteps(ctx: RedisContext): StepStore {
  return {
    async load(jobId) {
      const texts = await ctx.client.lrange(`${ctx.prefix}s:${jobId}`, 0, -1);
      return texts.map(toStep);
    },
    async save(jobId, claim, step) {
      assertStepRecord(step);
      const stored: StoredStep = {
        name: step.name,
        attempt: step.attempt,
        startedAt: step.startedAt,
        completedAt: step.completedAt,
        ...(step.output === undefined ? {} : { output: step.output }),
      };
      const reply = await ctx.run('stepSave', [
        jobId,
        claim.workerId,
        claim.claim,
        step.name,
        JSON.stringify(stored),
      ]);
      return reply === 1;
    },
  };
}
