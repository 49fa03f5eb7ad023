import type { StepRecord, StepStore } from '../job-driver';
import type { ClaimRef } from '../job-row';
import { assertStepRecord } from '../../values/request';
import { copyStep, holdsClaim, type MemoryStore } from './memory-store';

/**
 * Durable steps over the store. `save` is fenced exactly like `ack`. Saving a name the job already stored is a no-op
 * that answers true: the runtime never saves one name twice in a run (a duplicate is `X_STEP_DUPLICATE` before it
 * gets here) and a replayed step is read from `load()`, so a second save can only be a retry of a write that landed —
 * and the first output is the one a replay has already seen.
 */
export function memorySteps(store: MemoryStore): StepStore {
  return {
    load(jobId: string): Promise<readonly StepRecord[]> {
      return Promise.resolve((store.steps.get(jobId) ?? []).map(copyStep));
    },
    save(jobId: string, claim: ClaimRef, step: StepRecord): Promise<boolean> {
      try {
        assertStepRecord(step);
      } catch (error) {
        return Promise.reject(error as Error);
      }
      if (!holdsClaim(store.get(jobId), claim)) return Promise.resolve(false);
      let steps = store.steps.get(jobId);
      if (!steps) {
        steps = [];
        store.steps.set(jobId, steps);
      }
      if (!steps.some((s) => s.name === step.name)) steps.push(copyStep(step));
      return Promise.resolve(true);
    },
  };
}
