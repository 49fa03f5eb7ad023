import { redactedValues, redactJson, scrubJson, scrubText } from './redact';

describe('redaction', () => {
  const input = {
    card: { number: '4242424242424242', cvc: '123', pin: 98765 },
    items: [{ token: 'tok-aaaa' }, { token: 'tok-bbbbbbbb' }],
    note: 'keep',
  };

  it('redactJson replaces each declared path, `*` at any level, and leaves the value untouched', () => {
    const out = redactJson(input, ['card.number', 'items.*.token', 'absent.path']);
    expect(out).toEqual({
      card: { number: '[redacted]', cvc: '123', pin: 98765 },
      items: [{ token: '[redacted]' }, { token: '[redacted]' }],
      note: 'keep',
    });
    expect(input.card.number).toBe('4242424242424242');
  });

  it('redactedValues: every string and number the paths reach, under objects too, 4 characters or more, longest first', () => {
    expect(redactedValues(input, ['card', 'items.*.token', 'absent'])).toEqual([
      '4242424242424242',
      'tok-bbbbbbbb',
      'tok-aaaa',
      '98765',
    ]);
    expect(redactedValues(input, [])).toEqual([]);
    // the bound is inclusive: a 4-character PIN is scrubbed, a 3-character CVC is not
    expect(redactedValues({ pin: '1234', cvc: '123' }, ['pin', 'cvc'])).toEqual(['1234']);
  });

  it('scrubText replaces every occurrence, the longer secret first where one holds another', () => {
    expect(scrubText('a 1234567 b 1234567 c 4567', ['1234567', '4567'])).toBe(
      'a [redacted] b [redacted] c [redacted]',
    );
    expect(scrubText('nothing here', ['1234567'])).toBe('nothing here');
  });

  it('scrubJson scrubs strings and keys at any depth, keeps other values, and never mutates', () => {
    const value = {
      a: ['x secret-1 y', 5, null, true],
      ['secret-1']: { b: 'secret-1' },
      ['__proto__']: 'p',
    };
    const parsed = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
    const out = scrubJson(parsed as never, ['secret-1']) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['a', '[redacted]', '__proto__']);
    expect(out['a']).toEqual(['x [redacted] y', 5, null, true]);
    expect(out['[redacted]']).toEqual({ b: '[redacted]' });
    // a member named __proto__ stays a member: the copy's prototype is untouched
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('p');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(parsed['secret-1']).toEqual({ b: 'secret-1' });
    expect(scrubJson(parsed as never, [])).toBe(parsed);
  });
});
