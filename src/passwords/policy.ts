// The password complexity policy (ZITADEL's PasswordComplexityPolicy): a minimum length and whether an upper case
// letter, a lower case letter, a number and a symbol are required. The default is OWASP ASVS's: at least 8 characters,
// no composition rule. Every place that sets a password checks it and names the rule that failed, with ZITADEL's error
// IDs.
import { AppError, Code } from '../platform/errors.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../users/passwords.ts';

export interface PasswordPolicy {
  minLength: number;
  hasUppercase: boolean;
  hasLowercase: boolean;
  hasNumber: boolean;
  hasSymbol: boolean;
}

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = Object.freeze({
  minLength: PASSWORD_MIN_LENGTH,
  hasUppercase: false,
  hasLowercase: false,
  hasNumber: false,
  hasSymbol: false,
});

export type PasswordRule = 'length' | 'uppercase' | 'lowercase' | 'number' | 'symbol';

/** A rule a password breaks: which, ZITADEL's error ID for it, and the rule in words (the end of a message). */
export interface PasswordProblem {
  rule: PasswordRule;
  id: string;
  text: string;
  /** The policy's minimum length, for the pages' wording of the length rule. */
  minLength: number;
}

const RULES: { rule: PasswordRule; id: string; required: (p: PasswordPolicy) => boolean; test: RegExp }[] = [
  { rule: 'lowercase', id: 'COMMA-co3Xw', required: (p) => p.hasLowercase, test: /\p{Ll}/u },
  { rule: 'uppercase', id: 'COMMA-VoaRj', required: (p) => p.hasUppercase, test: /\p{Lu}/u },
  { rule: 'number', id: 'COMMA-ZBv4H', required: (p) => p.hasNumber, test: /\p{Nd}/u },
  // anything that is neither a letter, a number nor white space counts as a symbol
  { rule: 'symbol', id: 'COMMA-ZDLwA', required: (p) => p.hasSymbol, test: /[^\p{L}\p{N}\s]/u },
];

const RULE_TEXT: Record<Exclude<PasswordRule, 'length'>, string> = {
  lowercase: 'must contain a lower case letter',
  uppercase: 'must contain an upper case letter',
  number: 'must contain a number',
  symbol: 'must contain a symbol',
};

/** The first rule the password breaks, undefined when it passes. Length counts characters, not UTF-16 units. */
export function passwordProblem(policy: PasswordPolicy, password: string): PasswordProblem | undefined {
  const length = [...password].length;
  if (length < policy.minLength || length > PASSWORD_MAX_LENGTH) {
    return {
      rule: 'length',
      id: 'COMMA-HuJf6',
      text: `must be between ${policy.minLength} and ${PASSWORD_MAX_LENGTH} characters`,
      minLength: policy.minLength,
    };
  }
  const broken = RULES.find((r) => r.required(policy) && !r.test.test(password));
  if (!broken) return undefined;
  const text = RULE_TEXT[broken.rule as keyof typeof RULE_TEXT];
  return { rule: broken.rule, id: broken.id, text, minLength: policy.minLength };
}

/** A password refused by the policy, as the API reports it: INVALID_ARGUMENT naming the field and the rule. The
 *  login and account pages show the rule in the page's language instead. */
export class PasswordPolicyError extends AppError {
  override name = 'PasswordPolicyError';
  readonly problem: PasswordProblem;
  constructor(field: string, problem: PasswordProblem) {
    super(Code.InvalidArgument, `invalid ${field}: ${problem.text}`, problem.id);
    this.problem = problem;
  }
}
