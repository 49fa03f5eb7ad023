/** A class usable as a DTO input: any constructor (its parameters are never used — class-transformer builds it). */
export type DtoClass<T extends object = object> = new (...args: never[]) => T;

/** Keys of `T` that hold methods: they are not part of the data. */
type MethodKeys<T> = {
  [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T];

/**
 * What `enqueue` takes for a DTO class `T`: its data properties, as plain values (nested DTOs as plain objects, a
 * `Date` as a `Date` or its ISO string — a property with `@Type(() => Date)` turns either back into a `Date`).
 * Methods are left out; optional and readonly properties stay so.
 */
export type DtoInput<T> = T extends Date
  ? Date | string
  : T extends readonly (infer U)[]
    ? readonly DtoInput<U>[]
    : T extends object
      ? { [K in keyof T as K extends MethodKeys<T> ? never : K]: DtoInput<T[K]> }
      : T;
