// The password policy's rules in the page's language: the API names a failing rule in English, the
// login and account pages in the user's.
import { type PasswordPolicy, PasswordPolicyError, type PasswordProblem } from '../passwords/policy.ts';
import { format, type Texts } from '../views/i18n.ts';

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

const REQUIRED_KEYS: [keyof PasswordPolicy, string][] = [
  ['hasUppercase', 'passwordNeedsUppercase'],
  ['hasLowercase', 'passwordNeedsLowercase'],
  ['hasNumber', 'passwordNeedsNumber'],
  ['hasSymbol', 'passwordNeedsSymbol'],
];

/** The help under a new password's field: the policy in force in the page's language, so that no one meets a rule
 *  only by breaking it. */
export function passwordHelp(t: Texts, policy: PasswordPolicy): string {
  const needs = REQUIRED_KEYS.filter(([flag]) => policy[flag]).map(([, key]) => t[key]);
  const length = format(t.newPasswordHelp!, { min: policy.minLength });
  return needs.length ? `${length} ${format(t.passwordNeeds!, { rules: needs.join(', ') })}` : length;
}
