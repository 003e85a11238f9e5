import { describe, expect, it } from 'vitest';
import { RawSlots } from './raw-splice.js';

describe('RawSlots', () => {
  it('splices raw JSON byte for byte and leaves look-alike text alone', () => {
    const slots = new RawSlots();
    const body = {
      a: slots.slot('{"n": 12345678901234567890, "f": 1.0}', 'x'),
      b: '\u0000fisk-raw:0000000000000000:0',
      c: [slots.slot('[1,2]', 'y')],
    };
    const text = slots.serialize(body);
    expect(text).toBe('{"a":{"n": 12345678901234567890, "f": 1.0},"b":"\\u0000fisk-raw:0000000000000000:0","c":[[1,2]]}');
  });

  it('refuses a value that is not JSON, naming it', () => {
    expect(() => new RawSlots().slot('{oops', 'tool call c1 input')).toThrow(/tool call c1 input is not valid JSON/);
  });
});
