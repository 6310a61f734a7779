/**
 * Every documented operation's `operationId`, by `METHOD /route/:pattern`: the names a generated
 * client calls (`client.listProjects()`). They are part of the API: never rename one. A route the
 * document shows without a name here stops the document from being generated (openapi.ts), so a new
 * route cannot ship unnamed.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  // Operations
  'GET /healthz': 'getHealth',
  'GET /readyz': 'getReadiness',
  // Personal access tokens
  'GET /api/v1/tokens': 'listTokens',
  'POST /api/v1/tokens': 'createToken',
  'DELETE /api/v1/tokens/:token': 'revokeToken',
  // Projects
  'GET /api/v1/projects': 'listProjects',
  'POST /api/v1/projects': 'createProject',
  'GET /api/v1/projects/:project': 'getProject',
  'PUT /api/v1/projects/:project': 'updateProject',
  'DELETE /api/v1/projects/:project': 'deleteProject',
  'POST /api/v1/projects/:project/regenerate-token': 'regenerateProjectToken',
  'POST /api/v1/projects/:project/archive': 'archiveProject',
  'POST /api/v1/projects/:project/unarchive': 'unarchiveProject',
  // Reports
  'GET /api/v1/projects/:project/reports': 'listReports',
  'GET /api/v1/projects/:project/branches': 'listBranches',
  'GET /api/v1/projects/:project/pull-requests': 'listPullRequests',
  'GET /api/v1/projects/:project/trend': 'getTrend',
  'GET /api/v1/projects/:project/failures': 'listFailures',
  'GET /api/v1/projects/:project/issues': 'listProjectIssues',
  'GET /api/v1/reports/:report': 'getReport',
  'DELETE /api/v1/reports/:report': 'deleteReport',
  'GET /api/v1/reports/:report/changes': 'listReportChanges',
  'GET /api/v1/reports/:report/export': 'exportReport',
  'GET /api/v1/reports/:report/suppressed': 'listReportSuppressedIssues',
  // Badges
  'GET /api/v1/projects/:project/badges': 'getBadgeUrls',
  'POST /api/v1/projects/:project/badges/regenerate': 'regenerateBadgeKey',
  'GET /badges/:key/score.svg': 'getScoreBadge',
  'GET /badges/:key/gate.svg': 'getGateBadge',
  'GET /badges/:key/score.json': 'getScoreBadgeEndpoint',
  // Dashboard sessions (E7)
  'POST /api/v1/session': 'signIn',
  'GET /api/v1/session': 'getSession',
  'DELETE /api/v1/session': 'signOut',
  'PUT /api/v1/user/password': 'changePassword',
  // Webhooks (E6)
  'GET /api/v1/projects/:project/webhooks': 'listWebhooks',
  'POST /api/v1/projects/:project/webhooks': 'createWebhook',
  'GET /api/v1/projects/:project/webhooks/:webhook': 'getWebhook',
  'PUT /api/v1/projects/:project/webhooks/:webhook': 'updateWebhook',
  'DELETE /api/v1/projects/:project/webhooks/:webhook': 'deleteWebhook',
  'POST /api/v1/projects/:project/webhooks/:webhook/rotate-secret': 'rotateWebhookSecret',
  'POST /api/v1/projects/:project/webhooks/:webhook/ping': 'pingWebhook',
  'GET /api/v1/projects/:project/webhooks/:webhook/deliveries': 'listWebhookDeliveries',
  'POST /api/v1/projects/:project/webhooks/:webhook/deliveries/:delivery/redeliver': 'redeliverWebhookDelivery',
  // Issue tracking (E8)
  'PUT /api/v1/projects/:project/issues/:fingerprint': 'updateIssueState',
  'POST /api/v1/projects/:project/issues/bulk': 'updateIssueStates',
  'GET /api/v1/user/issues': 'listAssignedIssues',
  // A project's tracker and tickets (E9)
  'GET /api/v1/projects/:project/tracker': 'showProjectTracker',
  'PUT /api/v1/projects/:project/tracker': 'linkProjectTracker',
  'GET /api/v1/projects/:project/tracker/deliveries': 'listProjectTrackerDeliveries',
  // A project's code host (E10)
  'GET /api/v1/projects/:project/code-host': 'showProjectCodeHost',
  'PUT /api/v1/projects/:project/code-host': 'linkProjectCodeHost',
  'DELETE /api/v1/projects/:project/code-host': 'unlinkProjectCodeHost',
  'GET /api/v1/projects/:project/code-host/deliveries': 'listProjectCodeHostDeliveries',
  'POST /api/v1/projects/:project/issues/:fingerprint/ticket': 'createIssueTicket',
  'POST /api/v1/projects/:project/issues/bulk-tickets': 'createIssueTickets',
  // The caller
  'GET /api/v1/user': 'getUser',
  'PUT /api/v1/user': 'updateUser',
  'PUT /api/v1/user/current-team': 'switchCurrentTeam',
  'GET /api/v1/user/audit-events': 'listUserAuditEvents',
  // Notifications (E11)
  'GET /api/v1/user/notifications': 'getNotificationSettings',
  'PUT /api/v1/user/notifications': 'updateNotificationSettings',
  'GET /notifications/unsubscribe/:token': 'showUnsubscribePage',
  'POST /notifications/unsubscribe/:token': 'unsubscribe',
  // Teams
  'GET /api/v1/teams': 'listTeams',
  'POST /api/v1/teams': 'createTeam',
  'GET /api/v1/teams/:team': 'getTeam',
  'PUT /api/v1/teams/:team': 'updateTeam',
  'DELETE /api/v1/teams/:team': 'deleteTeam',
  'POST /api/v1/teams/:team/transfer': 'transferTeam',
  'PUT /api/v1/teams/:team/members/:user': 'updateMemberRole',
  'DELETE /api/v1/teams/:team/members/:user': 'removeMember',
  'GET /api/v1/teams/:team/invitations': 'listTeamInvitations',
  'POST /api/v1/teams/:team/invitations': 'createInvitation',
  'DELETE /api/v1/teams/:team/invitations/:id': 'cancelInvitation',
  'GET /api/v1/teams/:team/audit-events': 'listTeamAuditEvents',
  // Connections
  'GET /api/v1/teams/:team/connections': 'listConnections',
  'POST /api/v1/teams/:team/connections': 'createConnection',
  'GET /api/v1/teams/:team/connections/:connection': 'getConnection',
  'PUT /api/v1/teams/:team/connections/:connection': 'updateConnection',
  'DELETE /api/v1/teams/:team/connections/:connection': 'deleteConnection',
  'POST /api/v1/teams/:team/connections/:connection/check': 'checkConnection',
  // Invitations addressed to the caller
  'GET /api/v1/invitations': 'listInvitations',
  'POST /api/v1/invitations/:id/accept': 'acceptInvitation',
  'POST /api/v1/invitations/:id/decline': 'declineInvitation',
  // The client package
  'POST /api/reports': 'submitReport',
  'POST /api/v1/reports': 'submitReportLegacy',
  'POST /api/reports/failure': 'submitFailure',
  'GET /api/token/verify': 'verifyProjectToken',
  'GET /api/project': 'getTokenProject',
};

/** The operationId of a documented route; throws for one without (see above). */
export function operationIdOf(method: string, url: string): string {
  const id = OPERATION_IDS[`${method} ${url}`];
  if (id === undefined) throw new Error(`No operationId for ${method} ${url}: add one to http/operation-ids.ts.`);
  return id;
}
