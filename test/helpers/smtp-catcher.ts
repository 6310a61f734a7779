import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

/**
 * A real SMTP server in the test's process (the `smtp-server` package), on a free port of
 * 127.0.0.1: it keeps every email it accepted, parsed by `mailparser` as a mail client would read
 * it. It can refuse the next emails with a reply of the test's choosing (a 4xx or a 5xx), and go
 * down and come back up on the same port.
 */

export interface CaughtEmail {
  /** The SMTP envelope's recipients (RCPT TO). */
  to: string[];
  from: string;
  mail: ParsedMail;
  /** The message as sent, headers and all. */
  raw: string;
}

export interface SmtpCatcher {
  /** `smtp://127.0.0.1:PORT`, for SMTP_URL. */
  url: string;
  received: CaughtEmail[];
  /** The next `count` emails get this reply to their DATA instead of 250. */
  refuseNext(count: number, code: number, message: string): void;
  /** Stops listening (connections are refused) until `up`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const received: CaughtEmail[] = [];
  let refusals: { count: number; code: number; message: string } = { count: 0, code: 0, message: '' };

  function onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null) => void) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (refusals.count > 0) {
        refusals.count -= 1;
        callback(Object.assign(new Error(refusals.message), { responseCode: refusals.code }));
        return;
      }
      const raw = Buffer.concat(chunks);
      simpleParser(raw)
        .then((mail) => {
          received.push({
            to: session.envelope.rcptTo.map((address) => address.address),
            from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            mail,
            raw: raw.toString('utf8'),
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    });
  }

  const make = () => new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false, onData, banner: 'test catcher' });
  let server = make();
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.server.address() as AddressInfo).port));
    });
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const port = await listen(0);
  let running = true;

  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseNext(count, code, message) {
      refusals = { count, code, message };
    },
    async down() {
      if (!running) return;
      running = false;
      await stop();
    },
    async up() {
      if (running) return;
      server = make();
      await listen(port);
      running = true;
    },
    async close() {
      if (running) await stop();
      running = false;
    },
  };
}
