// The baseline of `npm run bench`: a bare oidc-provider 9 with its in-memory adapter, the same endpoint paths and
// the same kinds of clients as Gatehouse. It is the ceiling of the library itself. Run as a child process; it
// prints one JSON line with its port and the credentials the scenarios need. Its interaction signs the bench user in
// and grants the requested scopes at once, with no page (the least an application on the library must do), so a
// browser gets a session and codes as from Gatehouse's login (the CPU budget's silent re-authentication and code
// exchange, bench/cpu-budget.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';
import { ROUTES } from '../src/oidc/protocol.ts';
import { BASELINE_CALLBACK } from './baseline-target.ts';

const port = Number(process.argv[2] ?? 0);
// the redirect URI of Gatehouse's bench app (CALLBACK of bench/gatehouse.ts), so the same login flows run on both
const loginCallback = process.argv[3]!;
const issuerHost = '127.0.0.1';
const SECRET = 'baseline-client-secret-0123456789abcdef';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256', kid: 'baseline-1' };

async function main(): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, issuerHost, resolve));
  const actualPort = (server.address() as { port: number }).port;
  const issuer = `http://${issuerHost}:${actualPort}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'bench-cc',
        client_secret: SECRET,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
      { client_id: 'bench-rs', client_secret: SECRET, grant_types: [], response_types: [], redirect_uris: [] },
      {
        client_id: 'bench-web',
        client_secret: SECRET,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [BASELINE_CALLBACK, loginCallback],
      },
    ],
    jwks: { keys: [jwk as never] },
    routes: { ...ROUTES },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      pushedAuthorizationRequests: { enabled: true }, // the PAR push scenario
    },
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email', 'email_verified'] },
    rotateRefreshToken: true,
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({
        sub,
        name: 'Bench User',
        preferred_username: 'bench',
        email: 'bench@example.test',
        email_verified: true,
      }),
    }),
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) signIn(provider, req, res).catch(() => res.writeHead(500).end());
    else callback(req, res);
  });

  // Tokens for the userinfo and refresh scenarios, minted with the library's own models.
  const client = await provider.Client.find('bench-web');
  const mint = async () => {
    const grant = new provider.Grant({ accountId: 'bench-user', clientId: 'bench-web' });
    grant.addOIDCScope('openid profile email offline_access');
    const grantId = await grant.save();
    const common = {
      accountId: 'bench-user',
      client,
      grantId,
      gty: 'authorization_code',
      scope: 'openid profile email offline_access',
    };
    const accessToken = await new provider.AccessToken(common as never).save();
    const refreshToken = await new provider.RefreshToken({
      ...common,
      authTime: Math.floor(Date.now() / 1000),
      iat: Math.floor(Date.now() / 1000),
    } as never).save();
    return { accessToken, refreshToken };
  };
  const tokens = await Promise.all(Array.from({ length: 64 }, mint));
  process.stdout.write(
    `${JSON.stringify({
      url: issuer,
      clientCredentials: { clientId: 'bench-cc', clientSecret: SECRET },
      introspector: { clientId: 'bench-rs', clientSecret: SECRET },
      web: { clientId: 'bench-web', clientSecret: SECRET },
      userAccessToken: tokens[0]!.accessToken,
      refreshTokens: tokens.map((t) => t.refreshToken),
    })}\n`,
  );
}

/** The interaction: the bench user signed in and every requested scope granted, then back to the authorization. */
async function signIn(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { params } = await provider.interactionDetails(req, res);
  const grant = new provider.Grant({ accountId: 'bench-user', clientId: String(params.client_id) });
  grant.addOIDCScope(String(params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId: 'bench-user' }, consent: { grantId } });
}

await main();
