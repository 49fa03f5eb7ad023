import { job } from '../../declare/job';
import { task, type TaskEntry } from '../../declare/task';
import { t } from '../../schema';
import { Task, type TaskMethodOptions } from './task.decorator';
import { codeOf } from '../../../test/outcomes';

/** Declares a class with one `@Task` method: decorators run when the class is defined. */
function declareWith(options: TaskMethodOptions): void {
  class Declared {
    @Task(options)
    tick(): readonly TaskEntry[] {
      return [];
    }
  }
  void Declared;
}

const ping = job({
  name: 'task-decorator-spec.ping',
  input: t.object({}),
  idempotencyKey: () => 'ping',
  tenant: 'none',
  run: () => undefined,
});

describe('@Task', () => {
  it('refuses a missing name, a bad cron and an unknown zone where the class is declared', () => {
    const loose = (options: Record<string, unknown>): TaskMethodOptions =>
      options as unknown as TaskMethodOptions;
    expect(codeOf(() => declareWith(loose({ cron: '0 * * * *', tz: 'UTC' })))).toBe(
      'X_JOB_DECLARATION_INVALID',
    );
    expect(
      codeOf(() =>
        declareWith({ name: 'task-decorator-spec.cron', cron: '0 0 31 2 *', tz: 'UTC' }),
      ),
    ).toBe('X_JOB_DECLARATION_INVALID');
    expect(
      codeOf(() =>
        declareWith({ name: 'task-decorator-spec.tz', cron: '0 * * * *', tz: 'Bogota' }),
      ),
    ).toBe('X_JOB_DECLARATION_INVALID');
  });

  it('refuses a name a declared task() already holds (X_JOB_DUPLICATE)', () => {
    task({ name: 'task-decorator-spec.taken', cron: '0 * * * *', tz: 'UTC', enqueue: () => [] });
    expect(
      codeOf(() =>
        declareWith({ name: 'task-decorator-spec.taken', cron: '5 * * * *', tz: 'UTC' }),
      ),
    ).toBe('X_JOB_DUPLICATE');
  });

  it('only takes methods that answer entries for an occurrence (compile time)', () => {
    class Typed {
      @Task({ name: 'task-decorator-spec.typed', cron: '0 * * * *', tz: 'UTC' })
      ok(occurrenceMs: number): readonly TaskEntry[] {
        return [[ping, { at: occurrenceMs }]];
      }

      // @ts-expect-error a task method answers [[job, input], …], not a promise of them
      @Task({ name: 'task-decorator-spec.async', cron: '0 * * * *', tz: 'UTC' })
      async notOk(): Promise<readonly TaskEntry[]> {
        return [];
      }
    }
    expect(typeof Typed).toBe('function');
  });
});
