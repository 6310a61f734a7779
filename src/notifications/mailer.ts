import nodemailer from 'nodemailer';
import type { CallOutcome } from '../outbox/outbox-worker.js';
import type { RenderedEmail } from './email-layout.js';

/**
 * E11.1, E11.4: sending one email through the operator's SMTP server (SMTP_URL, nodemailer), and
 * what the outbox makes of the answer: a 4xx reply, a connection that failed or timed out are
 * temporary and tried again on E6's schedule; a 5xx reply is permanent and recorded as failed with
 * the server's words. The URL (which may hold a password) is never logged nor put in an error.
 *
 * E6's network rules do not apply here: the SMTP server is the operator's own choice (often on
 * localhost), not an address a project's people typed.
 */

export interface OutgoingEmail extends RenderedEmail {
  to: string;
  /** `<…@…>`: the same on every attempt, so that a mail client shows a resent email once. */
  messageId: string;
  /** RFC 8058's one-click link, when the email has one. */
  unsubscribeUrl: string | null;
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<CallOutcome>;
  /** The sender's domain, for message ids. */
  readonly domain: string;
  close(): void;
}

/** A server that does not answer in time is a temporary failure, not a held worker. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  response?: string;
}

/** The server's reply in one line, cut: it is shown to the people who read the outbox. */
const replyOf = (response: string | undefined) => (response ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);

export function outcomeOfSmtpFailure(error: unknown): CallOutcome {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as SmtpFailure;
  const code = typeof failure.responseCode === 'number' ? failure.responseCode : null;
  if (code !== null && code >= 500) {
    return { ok: false, status: code, error: `the mail server refused the email: ${replyOf(failure.response) || code}`, retry: false };
  }
  if (code !== null && code >= 400) {
    return { ok: false, status: code, error: `the mail server deferred the email: ${replyOf(failure.response) || code}`, retry: true };
  }
  const why = typeof failure.code === 'string' && /^E[A-Z]+$/.test(failure.code) ? ` (${failure.code})` : '';
  return { ok: false, status: null, error: `could not reach the mail server${why}`, retry: true };
}

/** The domain of MAIL_FROM (`Name <a@b.example>` or `a@b.example`). */
export function senderDomain(mailFrom: string): string {
  const address = /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom;
  return address.slice(address.lastIndexOf('@') + 1).trim() || 'localhost';
}

export function createMailer(settings: { smtpUrl: string; mailFrom: string }): Mailer {
  // What the URL's query sets (`?tls.rejectUnauthorized=false`, say) wins over these defaults.
  const transport = nodemailer.createTransport({ url: settings.smtpUrl, ...TIMEOUTS }, { from: settings.mailFrom });
  return {
    domain: senderDomain(settings.mailFrom),
    async send(email) {
      try {
        const info = await transport.sendMail({
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
          messageId: email.messageId,
          headers: {
            // RFC 3834: nobody's out-of-office answers an automatic email.
            'Auto-Submitted': 'auto-generated',
            ...(email.unsubscribeUrl !== null && {
              'List-Unsubscribe': `<${email.unsubscribeUrl}>`,
              'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            }),
          },
        });
        const accepted = Number(/^\d{3}/.exec(String(info.response ?? ''))?.[0] ?? 250);
        return { ok: true, status: accepted };
      } catch (error) {
        return outcomeOfSmtpFailure(error);
      }
    },
    close: () => transport.close(),
  };
}
