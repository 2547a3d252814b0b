// The account pages' addresses, for the links other pages and mails point to.
export const ACCOUNT_PATH = '/ui/account';

/** The "forgot password" page, with the login name typed on the password page (only a prefill). */
export const forgotPasswordUrl = (loginName = '') =>
  `${ACCOUNT_PATH}/forgot-password${loginName ? `?${new URLSearchParams({ loginName })}` : ''}`;
