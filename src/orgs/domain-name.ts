// The generated domain of an organization without one, as ZITADEL makes it: the name lower-cased, spaces to '-',
// characters other than a-z, 0-9 and '-' dropped, at most 63 characters (one DNS label), trimmed of '-', then '.' and
// the instance domain. A name with no usable character falls back to the org ID, which is all digits.
export function generateOrgDomain(orgName: string, instanceDomain: string, orgId: string): string {
  const label = orgName
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
  return `${label || orgId}.${instanceDomain}`;
}
