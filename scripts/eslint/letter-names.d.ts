import type { Rule } from 'eslint';

declare const letterNames: Rule.RuleModule;
export default letterNames;
