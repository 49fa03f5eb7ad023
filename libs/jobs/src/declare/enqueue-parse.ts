import type { ParseResult } from '../schema/standard';
import type { JobHandle } from './handle';

/** A validator's throw, held until its row's turn so a batch refuses in the order its rows come. */
export class ThrownByParse {
  constructor(readonly error: unknown) {}
}

/** One item's parse: its result, or the validator's throw held for its row's turn. */
export type ItemParse<Out> = ParseResult<Out> | ThrownByParse;

/**
 * Every input of a batch parsed first; a validator that threw is held and rethrown at its row, in order. A synchronous
 * validator's answers are taken as they are (zod, valibot and `t` answer synchronously): no promise and no reaction
 * an item — a 1,000-item batch allocated 1,000 promises and 2,000 reactions here. Only when some validator answers a
 * promise is the batch awaited, once, for all of them.
 */
export async function parseAll<In, Out>(
  handle: JobHandle<In, Out, unknown>,
  raws: readonly In[],
): Promise<readonly ItemParse<Out>[]> {
  const parses: (ItemParse<Out> | Promise<ItemParse<Out>>)[] = new Array(raws.length);
  let pending = false;
  for (let index = 0; index < raws.length; index++) {
    try {
      const parse = handle.parseInputNow(raws[index]);
      if (parse instanceof Promise) {
        pending = true;
        parses[index] = parse.then(
          (result) => result,
          (error: unknown) => new ThrownByParse(error),
        );
      } else parses[index] = parse;
    } catch (error) {
      parses[index] = new ThrownByParse(error);
    }
  }
  return pending ? Promise.all(parses) : (parses as ItemParse<Out>[]);
}
