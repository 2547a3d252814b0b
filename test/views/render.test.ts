import { describe, expect, it } from 'vitest';
import { Pages } from '../../src/web/pages.ts';
import { passwordResetMail } from '../../src/mail/messages.ts';
import { ErrorPage, LogoutPage } from '../../src/views/messages.ts';
import { LoginNamePage } from '../../src/views/login.ts';

const HOSTILE = `"><script>alert('1')</script>&`;

describe('views', () => {
  it('escapes every value in text and in attributes, and writes a whole document', () => {
    const pages = new Pages('<b>Acme</b>');
    const page = pages.render(400, 'en', LoginNamePage, 'loginTitle', {
      action: '/ui/login/x',
      csrf: HOSTILE,
      loginName: HOSTILE,
      error: HOSTILE,
      registerUrl: '/r',
      allowPassword: true,
      idps: [{ id: 'i"1', name: '<img src=x onerror=alert(1)>', href: '/i' }],
    });
    expect(page.body.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(page.body).not.toContain('<script');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).not.toContain('<b>');
    expect(page.body).toContain('value="&quot;>&lt;script>alert(\'1\')&lt;/script>&amp;"');
    expect(page.body).toContain('<title>Sign in · &lt;b>Acme&lt;/b></title>');
    expect(page.body).toContain('id="idp-i&quot;1"');
    expect(page.body).toContain('aria-describedby="loginName-help loginName-error" aria-invalid="true"');
    expect(page.headers['content-security-policy']).not.toContain('script-src');
  });

  it('renders the texts of the language and leaves out what is not set', () => {
    const pages = new Pages('Acme');
    const de = pages.render(400, 'de', ErrorPage, 'errorTitle', { title: 'T', message: 'M' });
    expect(de.body).toContain('<html lang="de">');
    expect(de.headers['content-language']).toBe('de');
    expect(de.body).not.toContain('error-code');
  });

  it('writes the logout script only with its nonce, which the CSP then allows', () => {
    const pages = new Pages('Acme');
    const props = { action: '/session/end/confirm', xsrf: 'x', account: undefined };
    expect(pages.render(200, 'en', LogoutPage, 'logoutTitle', props).body).not.toContain('<script');
    const auto = pages.render(200, 'en', LogoutPage, 'logoutTitle', props, 'n0nce');
    expect(auto.body).toContain('<script nonce="n0nce">document.forms[0].submit();</script>');
    expect(auto.headers['content-security-policy']).toContain("script-src 'nonce-n0nce'");
  });

  it('escapes the values of a mail', () => {
    const mail = passwordResetMail({ instanceName: '<i>Acme</i>' }, 'en', {
      to: 'a@example.com',
      name: HOSTILE,
      loginName: 'a',
      link: 'https://id.example.com/reset?a=1&b="2"',
      code: 'C0DE',
    });
    expect(mail.html).not.toContain('<script');
    expect(mail.html).not.toContain('<i>');
    expect(mail.html).toContain('href="https://id.example.com/reset?a=1&amp;b=&quot;2&quot;"');
    expect(mail.html).toContain('C0DE');
    expect(mail.text).toContain(HOSTILE);
  });
});
