// Roles as ZITADEL names them. IAM_* roles are held on the instance, ORG_* roles on one organization.
export const INSTANCE_ROLES = [
  'IAM_OWNER',
  'IAM_OWNER_VIEWER',
  'IAM_ORG_MANAGER',
  'IAM_USER_MANAGER',
  'IAM_LOGIN_CLIENT',
] as const;
export const ORG_ROLES = [
  'ORG_OWNER',
  'ORG_OWNER_VIEWER',
  'ORG_USER_MANAGER',
  'ORG_USER_PERMISSION_EDITOR',
  'ORG_PROJECT_PERMISSION_EDITOR',
  'ORG_PROJECT_CREATOR',
] as const;

// ZITADEL's project member roles (its default role mapping).
export const PROJECT_ROLES = [
  'PROJECT_OWNER',
  'PROJECT_OWNER_VIEWER',
  'PROJECT_OWNER_GLOBAL',
  'PROJECT_OWNER_VIEWER_GLOBAL',
] as const;

export const IAM_OWNER = 'IAM_OWNER';
export const ORG_OWNER = 'ORG_OWNER';
export const PROJECT_OWNER = 'PROJECT_OWNER';
export const PROJECT_OWNER_VIEWER = 'PROJECT_OWNER_VIEWER';

export function isOrgRole(role: string): boolean {
  return (ORG_ROLES as readonly string[]).includes(role);
}

export function isInstanceRole(role: string): boolean {
  return (INSTANCE_ROLES as readonly string[]).includes(role);
}
