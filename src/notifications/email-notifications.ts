import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { inTransaction, type Db } from '../db/database.js';
import { enqueueOutbox, type NewOutboxMessage } from '../outbox/outbox-queue.js';
import type { CallOutcome, OutboxCall, OutboxHandler } from '../outbox/outbox-worker.js';
import type { StoredReport } from '../reports/report-stored.js';
import {
  assignedIssues,
  countAt,
  digestProjects,
  gateFlip,
  listedNewIssues,
  newIssueCounts,
  personName,
  type ReportRow,
  readReport,
  recipient,
  teamMembers,
} from './email-facts.js';
import {
  assignedEmail,
  digestEmail,
  type EmailFrame,
  type EmailKind,
  gateEmail,
  invitationEmail,
  newIssuesEmail,
  UNSUBSCRIBE_KIND_OF,
} from './email-kinds.js';
import type { RenderedEmail } from './email-layout.js';
import type { Mailer } from './mailer.js';
import { createNotificationSettingsRepository, type NotificationSettings } from './notification-settings.repository.js';
import { signUnsubscribe, type Unsubscriber } from './unsubscribe-token.js';

/**
 * E11.3–E11.4: the emails, through E6's outbox (outbox/). Each event writes its emails in the
 * transaction of the change that causes it, one outbox message per person:
 *
 * - an issue assigned (E8) and an invitation (E4) write theirs in the change's own transaction;
 * - a stored report (not a pull request's) writes one `report_notifications` message; its attempt
 *   reads whether the gate flipped and what is new, and whom it concerns, and writes one `email`
 *   message per person and kind; the weekly digest (weekly-digest.ts) writes one per person.
 *
 * Those two kinds of fan-out record their event in `notification_events` in the transaction that
 * writes the emails, so a fan-out made again (its instance died before recording its outcome; two
 * instances running the digest at once) writes nothing twice. An `email` message is rendered when it
 * is sent, from what is true then: a choice turned off, a project muted, an issue dismissed or
 * reassigned, a member gone, an invitation cancelled since mean nothing is sent.
 */

export const REPORT_NOTIFICATIONS = 'report_notifications';
export const EMAIL = 'email';

/** The outbox's receiver of every email: the one SMTP server (fair shares are per team, D31). */
const SMTP_TARGET = 'smtp';

export type EmailPayload =
  | { kind: 'gate_failed' | 'gate_recovered' | 'new_issues'; user_id: number; report_id: number; dashboard_base: string }
  | { kind: 'assigned'; user_id: number; project_id: string; team_id: number; by_user_id: number; fingerprints: string[] }
  | { kind: 'invitation'; email: string; invitation_id: number }
  | { kind: 'weekly_digest'; user_id: number; week_from: string; week_to: string };

interface ReportPayload {
  report_id: number;
  dashboard_base: string;
}

/** What became of one email, for the /metrics counter: `skipped` is one there was nothing left to send. */
export type EmailOutcome = 'sent' | 'deferred' | 'rejected' | 'skipped';

/** Outbox rows per insert. */
const WRITE_BATCH = 200;

const NOTHING_TO_SEND: CallOutcome = { ok: true, status: null };

export function createEmailNotifications(deps: {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'port'>;
  /** Null when SMTP_URL and MAIL_FROM are not both set: no email is written nor sent. */
  mailer: Mailer | null;
  /** The unsubscribe links' key (unsubscribe-token.ts). */
  signingKey: () => Promise<Buffer>;
  onEmail?: (kind: EmailKind, outcome: EmailOutcome) => void;
}) {
  const { db, clock, mailer, signingKey } = deps;
  const now = () => clock.now().toISOString();

  /** PUBLIC_URL first (E11.3); else the address the triggering request used; else this server on localhost. */
  function baseOf(dashboardBase?: string): string {
    const base = deps.config.publicUrl ?? dashboardBase ?? `http://localhost:${deps.config.port}`;
    return base.replace(/\/+$/, '');
  }

  async function frameFor(who: Unsubscriber, kind: EmailKind, dashboardBase?: string): Promise<EmailFrame> {
    const base = baseOf(dashboardBase);
    const token = signUnsubscribe(await signingKey(), { who, kind: UNSUBSCRIBE_KIND_OF[kind] });
    return { base, unsubscribeUrl: `${base}/notifications/unsubscribe/${token}` };
  }

  async function send(call: OutboxCall, kind: EmailKind, to: string, email: RenderedEmail, frame: EmailFrame): Promise<CallOutcome> {
    const outcome = await mailer!.send({ ...email, to, messageId: `<${call.id}@${mailer!.domain}>`, unsubscribeUrl: frame.unsubscribeUrl });
    deps.onEmail?.(kind, outcome.ok ? 'sent' : outcome.retry ? 'deferred' : 'rejected');
    return outcome;
  }

  function skipped(kind: EmailKind): CallOutcome {
    deps.onEmail?.(kind, 'skipped');
    return NOTHING_TO_SEND;
  }

  const settingsOf = async (userId: number): Promise<NotificationSettings> =>
    (await createNotificationSettingsRepository(db).settingsOf([userId])).get(userId)!;

  /** The person of a report's email, if they still want it: a member of the project's team who did not mute it. */
  async function reportRecipient(userId: number, report: ReportRow): Promise<{ email: string; settings: NotificationSettings } | null> {
    const person = await recipient(db, userId, report.teamId);
    if (person === null || !person.member) return null;
    const settings = await settingsOf(userId);
    if (settings.muted_projects.includes(report.projectId)) return null;
    return { email: person.email, settings };
  }

  const emailHandler: OutboxHandler = async (call) => {
    const payload = call.payload as EmailPayload;
    switch (payload.kind) {
      case 'gate_failed':
      case 'gate_recovered':
      case 'new_issues': {
        const report = await readReport(db, payload.report_id);
        if (report === null) return skipped(payload.kind);
        const person = await reportRecipient(payload.user_id, report);
        if (person === null) return skipped(payload.kind);
        const frame = await frameFor({ userId: payload.user_id }, payload.kind, payload.dashboard_base);
        if (payload.kind === 'new_issues') {
          const level = person.settings.new_issues;
          if (level === 'none') return skipped(payload.kind);
          const total = countAt(await newIssueCounts(db, report, now()), level);
          if (total === 0) return skipped(payload.kind);
          const listed = await listedNewIssues(db, report, level, now());
          return send(call, payload.kind, person.email, newIssuesEmail(report, { level, listed, total }, frame), frame);
        }
        if (!person.settings.gate_failed) return skipped(payload.kind);
        const flip = await gateFlip(db, report);
        if (flip?.kind !== payload.kind) return skipped(payload.kind);
        return send(call, payload.kind, person.email, gateEmail(payload.kind, { ...report, hadPrevious: flip.hadPrevious }, frame), frame);
      }
      case 'assigned': {
        const person = await recipient(db, payload.user_id, payload.team_id);
        if (person === null || !person.member) return skipped(payload.kind);
        const settings = await settingsOf(payload.user_id);
        if (!settings.assigned || settings.muted_projects.includes(payload.project_id)) return skipped(payload.kind);
        const project = await db.selectFrom('projects').select('name').where('id', '=', payload.project_id).executeTakeFirst();
        if (project === undefined) return skipped(payload.kind);
        const { issues, total } = await assignedIssues(db, payload.project_id, payload.user_id, payload.fingerprints);
        if (total === 0) return skipped(payload.kind);
        const frame = await frameFor({ userId: payload.user_id }, payload.kind);
        const by = await personName(db, payload.by_user_id);
        const email = assignedEmail({ projectId: payload.project_id, projectName: project.name, by, issues, total }, frame);
        return send(call, payload.kind, person.email, email, frame);
      }
      case 'invitation': {
        const invitation = await db
          .selectFrom('team_invitations as i')
          .innerJoin('teams as t', 't.id', 'i.team_id')
          .select(['i.email', 'i.role', 'i.invited_by', 'i.expires_at', 't.name as team_name'])
          .where('i.id', '=', payload.invitation_id)
          .executeTakeFirst();
        // Cancelled, replaced, accepted or expired since: nothing to invite to.
        if (invitation === undefined || invitation.email !== payload.email || invitation.expires_at <= now()) return skipped(payload.kind);
        const optedOut = await db.selectFrom('email_opt_outs').select('email').where('email', '=', payload.email).executeTakeFirst();
        if (optedOut !== undefined) return skipped(payload.kind);
        const frame = await frameFor({ email: payload.email }, payload.kind);
        const by = await personName(db, invitation.invited_by);
        const email = invitationEmail(
          { teamName: invitation.team_name, role: invitation.role, by, email: payload.email, expiresAt: invitation.expires_at },
          frame,
        );
        return send(call, payload.kind, payload.email, email, frame);
      }
      case 'weekly_digest': {
        const person = await recipient(db, payload.user_id);
        if (person === null || !(await settingsOf(payload.user_id)).weekly_digest) return skipped(payload.kind);
        const week = { from: payload.week_from, to: payload.week_to };
        const projects = await digestProjects(db, payload.user_id, week);
        // Nothing happened in any of their projects: no email (E11.3).
        if (projects.length === 0) return skipped(payload.kind);
        const frame = await frameFor({ userId: payload.user_id }, payload.kind);
        return send(call, payload.kind, person.email, digestEmail(week, projects, frame), frame);
      }
    }
  };

  /** A stored report's emails, one per person and kind, written once (notification_events). */
  const reportHandler: OutboxHandler = async (call) => {
    const payload = call.payload as ReportPayload;
    const report = await readReport(db, payload.report_id);
    if (report === null || report.pullRequest !== null) return NOTHING_TO_SEND;
    const [flip, counts, members] = await Promise.all([
      gateFlip(db, report),
      newIssueCounts(db, report, now()),
      teamMembers(db, report.teamId),
    ]);
    const settings = await createNotificationSettingsRepository(db).settingsOf(members.map((member) => member.id));
    const emails: EmailPayload[] = [];
    for (const member of members) {
      const choices = settings.get(member.id)!;
      if (choices.muted_projects.includes(report.projectId)) continue;
      const common = { user_id: member.id, report_id: report.reportId, dashboard_base: payload.dashboard_base };
      if (flip !== null && choices.gate_failed) emails.push({ kind: flip.kind, ...common });
      if (choices.new_issues !== 'none' && countAt(counts, choices.new_issues) > 0) emails.push({ kind: 'new_issues', ...common });
    }
    await writeOnce(`report:${report.reportId}`, emails, { project_id: report.projectId, owner: String(report.teamId) });
    return { ok: true, status: null };
  };

  /** Writes `emails` unless the event's emails were written already (by an earlier attempt, or another instance). */
  async function writeOnce(
    eventKey: string,
    emails: EmailPayload[],
    where: { project_id: string | null; owner: string },
  ): Promise<boolean> {
    return inTransaction(db, async (trx) => {
      const inserted = await trx
        .insertInto('notification_events')
        .values({ event_key: eventKey, created_at: now() })
        .onConflict((conflict) => conflict.column('event_key').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      // Batches well below both databases' limits on bound parameters (a digest may go to thousands).
      for (let i = 0; i < emails.length; i += WRITE_BATCH) {
        await enqueueOutbox(
          trx,
          clock,
          emails.slice(i, i + WRITE_BATCH).map((payload) => emailMessage(payload, where)),
        );
      }
      return true;
    });
  }

  function emailMessage(payload: EmailPayload, where: { project_id: string | null; owner: string }): NewOutboxMessage {
    return { kind: EMAIL, ...where, target: SMTP_TARGET, ordering_key: null, payload };
  }

  return {
    /** The outbox's handlers (features.ts): none without SMTP, so such an instance leaves emails to one that has it. */
    handlers: (mailer === null ? {} : { [REPORT_NOTIFICATIONS]: reportHandler, [EMAIL]: emailHandler }) as Record<string, OutboxHandler>,

    /** In the upload's transaction (reports/report-stored.ts): a report of a branch may notify. */
    async reportStored(trx: Db, report: StoredReport): Promise<void> {
      if (mailer === null || report.pullRequest !== null) return;
      const payload: ReportPayload = { report_id: report.reportId, dashboard_base: report.dashboardBase };
      await enqueueOutbox(trx, clock, [
        {
          kind: REPORT_NOTIFICATIONS,
          project_id: report.projectId,
          // Fair shares (D31) per project: one project's burst of uploads does not hold back another's emails.
          owner: report.projectId,
          target: 'notifications',
          ordering_key: null,
          payload,
        },
      ]);
    },

    /**
     * E8, in the change's transaction: `fingerprints` of a project of `teamId` were assigned to
     * `assigneeId` by `actorId`; one email for the change, unless they assigned them to themselves.
     */
    async issuesAssigned(
      trx: Db,
      change: { projectId: string; teamId: number; assigneeId: number; actorId: number; fingerprints: readonly string[] },
    ): Promise<void> {
      if (mailer === null || change.assigneeId === change.actorId || change.fingerprints.length === 0) return;
      const payload: EmailPayload = {
        kind: 'assigned',
        user_id: change.assigneeId,
        project_id: change.projectId,
        team_id: change.teamId,
        by_user_id: change.actorId,
        fingerprints: [...change.fingerprints],
      };
      await enqueueOutbox(trx, clock, [emailMessage(payload, { project_id: change.projectId, owner: String(change.teamId) })]);
    },

    /** E4, in the invitation's transaction: the invited address gets an email, account or not. */
    async memberInvited(trx: Db, invitation: { id: number; teamId: number; email: string }): Promise<void> {
      if (mailer === null) return;
      const payload: EmailPayload = { kind: 'invitation', email: invitation.email, invitation_id: invitation.id };
      await enqueueOutbox(trx, clock, [emailMessage(payload, { project_id: null, owner: String(invitation.teamId) })]);
    },

    /** The weekly digest's emails for the week `[from, to)`, once (weekly-digest.ts); false when written already. */
    async writeDigest(week: { from: string; to: string }): Promise<boolean> {
      if (mailer === null) return false;
      const users = await db
        .selectFrom('user_notification_settings')
        .select('user_id')
        .where('weekly_digest', '=', 1)
        .orderBy('user_id')
        .execute();
      const emails: EmailPayload[] = users.map((user) => ({
        kind: 'weekly_digest',
        user_id: user.user_id,
        week_from: week.from,
        week_to: week.to,
      }));
      return writeOnce(`digest:${week.to}`, emails, { project_id: null, owner: 'digest' });
    },
  };
}

export type EmailNotifications = ReturnType<typeof createEmailNotifications>;
