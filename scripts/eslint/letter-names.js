// @ts-check
// A lint rule of the project's own: a function longer than 30 lines, or a method of a class longer
// than 100, names its parameters and variables instead of using single letters, so a reader who
// lands in the middle of it can tell what each value is. `_` (unused) and the loop counters `i`,
// `j`, `k` are allowed; short functions, such as one-line callbacks, may keep their letters.

const LONG_FUNCTION = 30;
const LONG_CLASS = 100;
const ALLOWED = new Set(['_', 'i', 'j', 'k']);
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** @param {{ loc?: { start: { line: number }, end: { line: number } } | null }} node */
function lineCount(node) {
  return node.loc ? node.loc.end.line - node.loc.start.line + 1 : 0;
}

/**
 * Why a function counts as long, in words for the report, or null when it does not.
 * @param {any} fn
 */
function longBecause(fn) {
  if (lineCount(fn) > LONG_FUNCTION) return `a function of ${lineCount(fn)} lines`;
  const method = fn.parent;
  const klass = method && method.type === 'MethodDefinition' ? method.parent && method.parent.parent : null;
  if (klass && lineCount(klass) > LONG_CLASS) return `a method of a class of ${lineCount(klass)} lines`;
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'long functions name their values instead of using single letters' },
    schema: [],
    messages: {
      letter: "'{{name}}' is a single letter in {{where}}; give it a name that says what it holds",
    },
  },
  create(context) {
    const source = context.sourceCode;
    /** @param {any} node @param {any} fn */
    function check(node, fn) {
      const where = fn ? longBecause(fn) : null;
      if (where === null) return;
      for (const variable of source.getDeclaredVariables(node)) {
        if (variable.name.length !== 1 || ALLOWED.has(variable.name)) continue;
        for (const identifier of variable.identifiers) {
          if (identifier === (node.id ?? null) && FUNCTIONS.has(node.type)) continue;
          context.report({ node: identifier, messageId: 'letter', data: { name: variable.name, where } });
        }
      }
    }
    /** @param {any} node */
    function nearestFunction(node) {
      for (let up = node.parent; up; up = up.parent) if (FUNCTIONS.has(up.type)) return up;
      return null;
    }
    return {
      /** @param {any} node */
      'FunctionDeclaration, FunctionExpression, ArrowFunctionExpression'(node) {
        check(node, node);
      },
      /** @param {any} node */
      VariableDeclarator(node) {
        check(node, nearestFunction(node));
      },
      /** @param {any} node */
      CatchClause(node) {
        check(node, nearestFunction(node));
      },
    };
  },
};
