import { task, type TaskHandle } from '../declare/task';
import type * as TaskModule from '../declare/task';
import { errorCodeOf } from '../errors/jobs-error';
import { TaskRegistry } from './task.registry';

const declare = (name: string): TaskHandle =>
  task({ name, cron: '0 0 * * *', tz: 'UTC', enqueue: () => [] });

describe('TaskRegistry', () => {
  it('keeps one registration per handle, in registration order', () => {
    const registry = new TaskRegistry();
    const b = declare('task-registry-spec.b');
    const a = declare('task-registry-spec.a');
    registry.register(b);
    registry.register(a);
    registry.register(b);
    expect(registry.all()).toEqual([b, a]);
    expect(registry.get('task-registry-spec.a')).toBe(a);
    expect(registry.manifest().map((d) => d.name)).toEqual([
      'task-registry-spec.a',
      'task-registry-spec.b',
    ]);
  });

  it('refuses a different handle under a registered name (X_JOB_DUPLICATE)', () => {
    const registry = new TaskRegistry();
    registry.register(declare('task-registry-spec.twice'));
    // A second copy of the package has its own declaration table, so only the registry can see the clash.
    let copy: TaskHandle | undefined;
    jest.isolateModules(() => {
      const isolated = jest.requireActual<typeof TaskModule>('../declare/task');
      copy = isolated.task({
        name: 'task-registry-spec.twice',
        cron: '0 0 * * *',
        tz: 'UTC',
        enqueue: () => [],
      });
    });
    let code: string | undefined;
    try {
      registry.register(copy as TaskHandle);
    } catch (error) {
      code = errorCodeOf(error);
    }
    expect(code).toBe('X_JOB_DUPLICATE');
  });
});
