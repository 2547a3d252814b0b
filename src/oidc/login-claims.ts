// How the user signed in, as the tokens' extra claims carry it to introspection: the login's auth_time and its
// authentication methods (RFC 8176 amr). Undefined members are left out of the JSON.
export const loginClaims = (source: { authTime?: number; amr?: string[] }) => ({
  auth_time: source.authTime,
  amr: source.amr,
});
