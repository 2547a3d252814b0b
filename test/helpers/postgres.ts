// Naming and URLs of the throwaway PostgreSQL databases of one test run.

/** The maintenance database URL on the same server, for CREATE/DROP DATABASE. */
export function adminUrl(serverUrl: string): string {
  return databaseUrl(serverUrl, 'postgres');
}

export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export const isPostgres = Boolean(process.env.DATABASE_URL);
