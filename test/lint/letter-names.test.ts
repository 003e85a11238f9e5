/**
 * The project's own lint rule: a long function names its values, a short one may keep its letters.
 */
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';
import letterNames from '../../scripts/eslint/letter-names.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const body = (line: string): string => Array.from({ length: 31 }, () => line).join('\n');

tester.run('letter-names', letterNames, {
  valid: [
    { code: 'function short(a: number) { const b = a + 1; return b; }' },
    { code: `function long(count: number) {\n${body('  count++;')}\n  for (let i = 0; i < count; i++) count--;\n  const _ = count;\n}` },
    { code: `function long(items: number[]) {\n${body('  items.pop();')}\n  return items.map((x) => x + 1);\n}` },
  ],
  invalid: [
    {
      code: `function long(a: number) {\n${body('  a++;')}\n  const b = a;\n  try { a--; } catch (e) { a = 0; }\n  return b;\n}`,
      errors: [
        { message: "'a' is a single letter in a function of 36 lines; give it a name that says what it holds" },
        { messageId: 'letter' },
        { messageId: 'letter' },
      ],
    },
    {
      code: `class Big {\n${body('  field = 1;')}\n${body('  other = 2;')}\n${body('  more = 3;')}\n${body('  last = 4;')}\n  method() { const t = this.field; return t; }\n}`,
      errors: [{ message: "'t' is a single letter in a method of a class of 127 lines; give it a name that says what it holds" }],
    },
  ],
});
