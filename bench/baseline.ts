// The baseline of `npm run bench`: a bare oidc-provider 9 with its in-memory adapter, the same endpoint paths and
// the same kinds of clients as Gatehouse. It is the ceiling of the library itself. Run as a child process; it
// prints one JSON line with its port and the credentials the scenarios need.
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';
import { ROUTES } from '../src/oidc/protocol.ts';
import { BASELINE_CALLBACK } from './baseline-target.ts';

const port = Number(process.argv[2] ?? 0);
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
        redirect_uris: [BASELINE_CALLBACK],
      },
    ],
    jwks: { keys: [jwk as never] },
    routes: { ...ROUTES },
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
  server.on('request', provider.callback());

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

await main();
