// The pages' addresses that other pages, mails and the pages' home point to.
export const ACCOUNT_PATH = '/ui/account';
export const CONSOLE_PATH = '/ui/console';

/** The "forgot password" page, with the login name typed on the password page (only a prefill). */
export const forgotPasswordUrl = (loginName = '') =>
  `${ACCOUNT_PATH}/forgot-password${loginName ? `?${new URLSearchParams({ loginName })}` : ''}`;
