// The password policy's rules in the page's language (issue 16): the API names a failing rule in English, the
// login and account pages in the user's.
import { PasswordPolicyError, type PasswordProblem } from '../passwords/policy.ts';
import { format, type Texts } from './i18n.ts';

const RULE_KEYS: Record<Exclude<PasswordProblem['rule'], 'length'>, string> = {
  uppercase: 'errorPasswordUppercase',
  lowercase: 'errorPasswordLowercase',
  number: 'errorPasswordNumber',
  symbol: 'errorPasswordSymbol',
};

export function passwordRuleMessage(t: Texts, problem: PasswordProblem): string {
  if (problem.rule === 'length') return format(t.errorPasswordShort!, { min: problem.minLength });
  return t[RULE_KEYS[problem.rule]]!;
}

/** The message of a policy refusal, undefined for any other error (which the caller rethrows). */
export function policyRefusal(t: Texts, error: unknown): string | undefined {
  return error instanceof PasswordPolicyError ? passwordRuleMessage(t, error.problem) : undefined;
}
