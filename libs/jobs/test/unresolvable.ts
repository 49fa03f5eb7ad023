/**
 * Makes every module `hidden` matches unresolvable in this process from now on, as in an app that never installed it
 * (`require` throws `MODULE_NOT_FOUND`). A peers spec's child calls it first, then loads `@ultimat3/jobs`.
 */
export function makeUnresolvable(hidden: (request: string) => boolean): void {
  // the Module class, reached without an import (this file runs as CommonJS)
  const hooked = module.constructor as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
  };
  const resolve = hooked._resolveFilename;
  hooked._resolveFilename = function resolveWithoutHidden(
    this: unknown,
    request: string,
    ...rest: unknown[]
  ): string {
    if (hidden(request))
      throw Object.assign(new Error(`Cannot find module '${request}'`), {
        code: 'MODULE_NOT_FOUND',
      });
    return resolve.call(this, request, ...rest);
  };
}
