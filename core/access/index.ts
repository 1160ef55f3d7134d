// Access: accounts, users, memberships and roles, API keys (format, creation, revocation,
// authentication) and who may see which workspace.
export { DEFAULT_WORKSPACE_LIMIT, createAccount, getAccount, setWorkspaceLimit, type AccountInfo } from './accounts.ts';
export { createUser, isEmail, listUsers, normalizeEmail, type UserView } from './users.ts';
export { ROLES, isRole, roleAtLeast, type Role } from './roles.ts';
export { addMember, removeMember, roleIn, type MemberChange } from './memberships.ts';
export { createApiKey, revokeApiKey, listApiKeys, parseScopes, type CreatedApiKey, type ApiKeyView } from './api-keys.ts';
export {
  createOwnKey,
  getOwnKey,
  listOwnKeys,
  revokeOwnKey,
  rotateOwnKey,
  recordExpiredUse,
  apiKeyToApi,
  MAX_OVERLAP_SECONDS,
  type KeyCaller,
} from './own-keys.ts';
export { SCOPES, isScope, looksLikeKey, generateKey, hashKey, keyHint, keyLast4, KEY_PREFIX, KEY_LENGTH, crc32, type Scope } from './key-format.ts';
export {
  SESSION_COOKIE,
  looksLikeSessionToken,
  csrfTokenFor,
  csrfMatches,
  sessionCookie,
  sessionToApi,
  startSession,
  currentUser,
  listSessions,
  getSession,
  revokeSession,
  revokeSessionsOf,
  SsoRequired,
  type ClientInfo,
  type SignInMethod,
} from './sessions.ts';
export {
  SSO_BINDING_COOKIE,
  SSO_ATTEMPT_TTL_MS,
  ssoSettings,
  getSsoSettings,
  configureSso,
  removeSso,
  startSso,
  completeSso,
  bindingCookie,
  redirectUriOf,
  ssoRetention,
  resealSsoSecrets,
  type SsoSettings,
  type CallbackQuery,
} from './sso.ts';
export { hashPassword, verifyPassword } from './passwords.ts';
export {
  signInWithPassword,
  checkPassword,
  changePassword,
  setPassword,
  signInRetention,
  InvalidCredentials,
  SignInThrottled,
  FAILURES_PER_EMAIL,
  FAILURES_PER_ADDRESS,
  THROTTLE_WINDOW_MS,
} from './sign-in.ts';
export {
  startTwoStep,
  confirmTwoStep,
  disableTwoStep,
  disableOwnTwoStep,
  regenerateRecoveryCodes,
  completeChallenge,
  resealTwoStepSecrets,
  InvalidTwoStepCode,
} from './two-step.ts';
export { requestPasswordReset, completePasswordReset, sendEmailVerification, completeEmailVerification, LinkInvalid } from './email-links.ts';
export {
  authenticateKey,
  authenticateSession,
  authenticateRequest,
  registerRowTables,
  LAST_USED_RESOLUTION_MS,
  type AuthContext,
  type Authenticated,
  type Refusal,
  type WorkspaceHint,
} from './authenticate.ts';
export { visibleWorkspace, visibleWorkspaceIds, bindingAllows, type Caller, type VisibleWorkspace, type WorkspaceRow } from './visibility.ts';
export { WorkspaceGuard } from './guard.ts';
export { RateLimiter, RATE_LIMIT_WINDOW_MS, rateLimitRetention, type RateLimitDecision } from './rate-limits.ts';
export {
  listMembers,
  changeMemberRole,
  removeMemberAs,
  listInvitations,
  inviteMember,
  withdrawInvitation,
  acceptInvitation,
  INVITATION_TTL_MS,
} from './invitations.ts';
export {
  passkeyRegistrationOptions,
  registerPasskey,
  listPasskeys,
  removePasskey,
  passkeySignInOptions,
  signInWithPasskey,
  passkeyRetention,
  CHALLENGE_TTL_MS,
  SIGN_IN_CHALLENGES_PER_ADDRESS,
} from './passkeys.ts';
