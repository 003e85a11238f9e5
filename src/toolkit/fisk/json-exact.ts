/**
 * A JSON reader that keeps each number's text exactly as written, so `1e5` or
 * `12345678901234567890` reach the application's argv unchanged rather than through a float.
 */
import { MAX_TOOL_INPUT_DEPTH } from '../../util/json-depth.js';

/** The deepest nesting the reader accepts (the bound on all model tool input); past it, refused. */
export const EXACT_JSON_MAX_DEPTH = MAX_TOOL_INPUT_DEPTH;

/** A number as the model wrote it. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** A decoded value: numbers stay text. */
export type ExactJson = null | boolean | string | JsonNumber | readonly ExactJson[] | { readonly [key: string]: ExactJson };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters inside strings
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Parser {
  pos = 0;
  depth = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at offset ${this.pos}`);
  }

  ws(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos] ?? '')) this.pos++;
  }

  value(): ExactJson {
    this.ws();
    const char = this.text[this.pos];
    switch (char) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return this.string();
      case 't':
        return this.word('true', true);
      case 'f':
        return this.word('false', false);
      case 'n':
        return this.word('null', null);
      default:
        return this.number();
    }
  }

  word<T>(word: string, value: T): T {
    if (this.text.startsWith(word, this.pos)) {
      this.pos += word.length;
      return value;
    }
    return this.fail('unexpected token');
  }

  number(): JsonNumber {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail('unexpected token');
    this.pos += match[0].length;
    return new JsonNumber(match[0]);
  }

  string(): string {
    STRING.lastIndex = this.pos;
    const match = STRING.exec(this.text);
    if (match === null) this.fail('invalid string');
    this.pos += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  enter(): void {
    this.depth++;
    if (this.depth > EXACT_JSON_MAX_DEPTH) this.fail(`nested deeper than ${EXACT_JSON_MAX_DEPTH} levels`);
  }

  array(): ExactJson[] {
    this.enter();
    this.pos++;
    const out: ExactJson[] = [];
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const char = this.text[this.pos++];
      if (char === ']') {
        this.depth--;
        return out;
      }
      if (char !== ',') this.fail('expected "," or "]"');
    }
  }

  object(): Record<string, ExactJson> {
    this.enter();
    this.pos++;
    const out: Record<string, ExactJson> = Object.create(null) as Record<string, ExactJson>;
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.text[this.pos] !== '"') this.fail('expected a property name');
      const key = this.string();
      this.ws();
      if (this.text[this.pos++] !== ':') this.fail('expected ":"');
      out[key] = this.value();
      this.ws();
      const char = this.text[this.pos++];
      if (char === '}') {
        this.depth--;
        return out;
      }
      if (char !== ',') this.fail('expected "," or "}"');
    }
  }
}

/** Parses JSON text keeping number lexemes; throws `SyntaxError` on anything that is not JSON. */
export function parseExactJson(text: string): ExactJson {
  const p = new Parser(text);
  const v = p.value();
  p.ws();
  if (p.pos !== text.length) p.fail('unexpected trailing text');
  return v;
}
