import 'reflect-metadata';
import { JobDeclarationInvalidError } from '../../errors/declaration-errors';
import { currentRun } from '../../runtime/run-context';

/** A step's name: fixed, or derived from the method's arguments (`{ name: (id) => \`charge:${id}\` }`). */
export type StepName<A extends unknown[]> = string | { readonly name: (...args: A) => string };

/**
 * Makes a provider method a durable step when it is called inside a job run: the call becomes
 * `step.run(name, () => method(...args))` through the run's AsyncLocalStorage, so a replay answers the stored result
 * without calling it. Outside a run (a request, a script) it is a plain call.
 *
 * The name must be deterministic and unique within one run; derive it from the arguments when the method is called
 * more than once per run.
 */
export function Step<A extends unknown[]>(name: StepName<A>): MethodDecorator {
  if (
    typeof name !== 'string' &&
    (typeof name !== 'object' || name === null || typeof name.name !== 'function')
  ) {
    throw new JobDeclarationInvalidError(
      '@Step',
      'name',
      'must be a string or { name: (...args) => string }',
    );
  }
  if (typeof name === 'string' && name.length === 0) {
    throw new JobDeclarationInvalidError('@Step', 'name', 'must not be empty');
  }
  return (_target, _key, descriptor) => {
    const original = descriptor.value as unknown;
    if (typeof original !== 'function') {
      throw new JobDeclarationInvalidError('@Step', 'target', 'decorates methods only');
    }
    const method = original as (...args: A) => unknown;
    const wrapped = function (this: unknown, ...args: A): unknown {
      const run = currentRun();
      if (run === undefined) return method.apply(this, args);
      const stepName = typeof name === 'string' ? name : name.name(...args);
      return run.step.run(stepName, () => method.apply(this, args));
    };
    Object.defineProperty(wrapped, 'name', { value: method.name });
    // Nest reads metadata (guards, @Job) off the function object: carry it over to the wrapper.
    for (const key of Reflect.getMetadataKeys(method)) {
      Reflect.defineMetadata(key, Reflect.getMetadata(key, method), wrapped);
    }
    (descriptor as PropertyDescriptor).value = wrapped;
    return descriptor;
  };
}
