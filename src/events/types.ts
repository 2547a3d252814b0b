// Every event Gatehouse writes to its log, grouped by the aggregate it is written on. Each name is the event type
// ZITADEL's eventstore writes for the same change, so the audit log (ListEvents), an object's history
// (List…Changes) and the console's audit page show ZITADEL's names, and a client that knows ZITADEL's events reads
// ours. Writers name their event from here: appendEvent takes only a name of the catalog, and only one of the group
// of the aggregate it writes on, so a misspelt or misplaced event does not compile.
export const EVENT = {
  instance: {
    memberAdded: 'instance.member.added',
    memberChanged: 'instance.member.changed',
    memberRemoved: 'instance.member.removed',
    loginPolicyChanged: 'instance.policy.login.changed',
    loginPolicyIdpAdded: 'instance.policy.login.idpprovider.added',
    loginPolicyIdpRemoved: 'instance.policy.login.idpprovider.removed',
    /** The IdP left the login policy because the IdP itself was removed. */
    loginPolicyIdpCascadeRemoved: 'instance.policy.login.idpprovider.cascade.removed',
    passwordComplexityPolicyChanged: 'instance.policy.password.complexity.changed',
    lockoutPolicyChanged: 'instance.policy.lockout.changed',
    jwtIdpAdded: 'instance.idp.jwt.added',
    idpConfigChanged: 'instance.idp.config.changed',
    idpJwtConfigChanged: 'instance.idp.jwt.config.changed',
    idpConfigDeactivated: 'instance.idp.config.deactivated',
    idpConfigReactivated: 'instance.idp.config.reactivated',
    idpConfigRemoved: 'instance.idp.config.removed',
  },
  org: {
    added: 'org.added',
    changed: 'org.changed',
    deactivated: 'org.deactivated',
    reactivated: 'org.reactivated',
    removed: 'org.removed',
    domainAdded: 'org.domain.added',
    memberAdded: 'org.member.added',
    memberChanged: 'org.member.changed',
    memberRemoved: 'org.member.removed',
  },
  project: {
    added: 'project.added',
    changed: 'project.changed',
    deactivated: 'project.deactivated',
    reactivated: 'project.reactivated',
    removed: 'project.removed',
    memberAdded: 'project.member.added',
    memberChanged: 'project.member.changed',
    memberRemoved: 'project.member.removed',
    roleAdded: 'project.role.added',
    roleChanged: 'project.role.changed',
    roleRemoved: 'project.role.removed',
    grantAdded: 'project.grant.added',
    grantChanged: 'project.grant.changed',
    grantDeactivated: 'project.grant.deactivated',
    grantReactivated: 'project.grant.reactivated',
    grantRemoved: 'project.grant.removed',
    appAdded: 'project.application.added',
    appChanged: 'project.application.changed',
    appDeactivated: 'project.application.deactivated',
    appReactivated: 'project.application.reactivated',
    appRemoved: 'project.application.removed',
    oidcConfigChanged: 'project.application.config.oidc.changed',
    oidcSecretChanged: 'project.application.config.oidc.secret.changed',
    apiConfigChanged: 'project.application.config.api.changed',
    apiSecretChanged: 'project.application.config.api.secret.changed',
    appKeyAdded: 'project.application.key.added',
    appKeyRemoved: 'project.application.key.removed',
  },
  user: {
    humanAdded: 'user.human.added',
    humanSelfRegistered: 'user.human.selfregistered',
    machineAdded: 'user.machine.added',
    userNameChanged: 'user.username.changed',
    deactivated: 'user.deactivated',
    reactivated: 'user.reactivated',
    locked: 'user.locked',
    unlocked: 'user.unlocked',
    removed: 'user.removed',
    profileChanged: 'user.human.profile.changed',
    emailChanged: 'user.human.email.changed',
    emailCodeAdded: 'user.human.email.code.added',
    emailVerified: 'user.human.email.verified',
    phoneChanged: 'user.human.phone.changed',
    passwordChanged: 'user.human.password.changed',
    otpAdded: 'user.human.mfa.otp.added',
    otpVerified: 'user.human.mfa.otp.verified',
    otpRemoved: 'user.human.mfa.otp.removed',
    passkeyAdded: 'user.human.passwordless.token.added',
    passkeyRemoved: 'user.human.passwordless.token.removed',
    idpLinkAdded: 'user.human.externalidp.added',
    idpLinkRemoved: 'user.human.externalidp.removed',
    /** The link ended because its IdP was removed. */
    idpLinkCascadeRemoved: 'user.human.externalidp.cascade.removed',
    machineChanged: 'user.machine.changed',
    machineSecretSet: 'user.machine.secret.set',
    machineSecretRemoved: 'user.machine.secret.removed',
    machineKeyAdded: 'user.machine.key.added',
    machineKeyRemoved: 'user.machine.key.removed',
    personalAccessTokenAdded: 'user.personal.access.token.added',
    personalAccessTokenRemoved: 'user.personal.access.token.removed',
    metadataSet: 'user.metadata.set',
    metadataRemoved: 'user.metadata.removed',
    /** Gatehouse's own (ZITADEL asks no consent): the user said yes to an app of another org on the consent page. */
    consentGranted: 'user.consent.granted',
  },
  // ZITADEL writes a user's grants on an aggregate of their own, under the user's name
  usergrant: {
    added: 'user.grant.added',
    changed: 'user.grant.changed',
    deactivated: 'user.grant.deactivated',
    reactivated: 'user.grant.reactivated',
    removed: 'user.grant.removed',
  },
} as const;

/** The kinds of object events are written on (events.aggregate_type). */
export type AggregateType = keyof typeof EVENT;

/** An event written on aggregates of type A; left open, any event of the catalog. */
export type EventType<A extends AggregateType = AggregateType> = {
  [K in A]: (typeof EVENT)[K][keyof (typeof EVENT)[K]];
}[A];
