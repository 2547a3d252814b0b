// fetch with cookies, for HTTP-level tests of browser flows: keeps every cookie the server sets (by name; the
// tests talk to one origin) and never follows redirects, so each step's status and headers can be checked.
export interface JarResponse {
  status: number;
  headers: Headers;
  body: string;
  location: string | undefined;
  setCookies: string[];
}

export class CookieJar {
  readonly cookies = new Map<string, string>();

  async fetch(url: string | URL, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<JarResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...init.headers },
      signal: AbortSignal.timeout(15_000),
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0\b/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = response.headers.get('location') ?? undefined;
    return {
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      location: location && new URL(location, url).toString(),
      setCookies,
    };
  }

  /** Follows redirects until a page answers; returns the final URL and response, with the cookies set on the way. */
  async follow(
    url: string | URL,
    init: RequestInit & { headers?: Record<string, string> } = {},
    limit = 10,
  ): Promise<JarResponse & { url: string }> {
    let current = url.toString();
    let response = await this.fetch(current, init);
    const setCookies = [...response.setCookies];
    for (let i = 0; i < limit && response.location && response.status >= 300 && response.status < 400; i++) {
      current = response.location;
      // like a browser: the same headers (Accept-Language...) on every request, GET after a redirect
      response = await this.fetch(current, { headers: init.headers });
      setCookies.push(...response.setCookies);
    }
    return { ...response, setCookies, url: current };
  }
}

/** The value of a hidden form field in a page. */
export function formValue(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}
