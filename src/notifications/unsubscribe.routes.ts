import { Type } from 'typebox';
import { originOf } from '../auth/write-credential.js';
import type { App } from '../http/app-types.js';
import { ApiError } from '../wire/api-error.js';
import { escapeHtml } from '../wire/plain-text.js';
import { UNSUBSCRIBE_KINDS } from './email-kinds.js';
import { UNSUBSCRIBE_WORDS, type UnsubscribeService } from './unsubscribe.service.js';

/**
 * E11.3, under `/notifications/unsubscribe/{token}`: no credential, the signed token is all it
 * needs. POST is RFC 8058's one-click unsubscribe: a mail client sends it with the body
 * `List-Unsubscribe=One-Click` (form-encoded or multipart), a browser with the page's form; the
 * body is not read beyond its size. GET only shows the page with the button, because mail
 * scanners follow links: a GET never changes anything.
 */

/** Larger than any one-click body; anything larger is refused (413) before it is read. */
const BODY_LIMIT = 4096;

const Params = Type.Object({ token: Type.String({ description: 'The signed token of the link, as the email gave it.' }) });

const Unsubscribed = Type.Object(
  {
    data: Type.Object({
      kind: Type.Unsafe<string>({
        type: 'string',
        enum: [...UNSUBSCRIBE_KINDS],
        description: 'What was turned off: a notification choice of the user, or `invitations` for the address.',
      }),
      unsubscribed: Type.Literal(true),
    }),
  },
  { description: 'Turned off (or already off).' },
);

/** D3's envelope, for the answers of these routes that are not a page. */
const Failure = (description: string) =>
  Type.Object(
    { error: Type.String(), message: Type.String() },
    { description, examples: [{ error: 'Not Found', message: 'This unsubscribe link is not valid.' }] },
  );
const FAILURES = {
  400: Failure(
    'A path parameter has a broken percent-encoding, or the Host header is not a host name or IP address with an optional port.',
  ),
  404: Failure('The link is not valid: forged, altered or cut short, or its user no longer exists.'),
};

const HtmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String({ description: 'A page for people.' }) } },
});

/** The page's own policy: its inline styles, its form posting to this origin, nothing else. */
const PAGE_POLICY = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], styleSrc: ["'unsafe-inline'"], formAction: ["'self'"], frameAncestors: ["'none'"] },
  },
};

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)} · Scoreboard</title>
<style>body{margin:0;padding:48px 16px;background:#f6f8fa;color:#1f2328;font:16px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif}main{max-width:480px;margin:0 auto;padding:24px;background:#fff;border:1px solid #d1d9e0;border-radius:8px}h1{font-size:20px;margin:0 0 12px}button{padding:10px 16px;border:0;border-radius:6px;background:#1f883d;color:#fff;font:600 15px/1 inherit;cursor:pointer}button:focus-visible{outline:3px solid #0969da;outline-offset:2px}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>
`;
}

/** A forged, altered or cut link, or one of a user who no longer exists: D3's envelope, like any other 404. */
const invalidLink = () => new ApiError(404, 'Not Found', 'This unsubscribe link is not valid.');

export async function unsubscribeRoutes(app: App, deps: { unsubscribe: UnsubscribeService }) {
  // RFC 8058 bodies are form-encoded or multipart; what matters is the POST itself, not its body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, _body, done) => done(null, undefined));

  app.get('/notifications/unsubscribe/:token', {
    helmet: PAGE_POLICY,
    schema: {
      tags: ['notifications'],
      summary: "An email's unsubscribe link: a page with a button that turns that kind of email off",
      params: Params,
      response: { 200: HtmlPage('The page with the button.'), ...FAILURES },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const claim = await deps.unsubscribe.check(request.params.token);
      if (claim === null) throw invalidLink();
      return reply
        .type('text/html; charset=utf-8')
        .send(
          page(
            'Unsubscribe',
            `<p>Stop ${escapeHtml(UNSUBSCRIBE_WORDS[claim.kind])}?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
          ),
        );
    },
  });

  app.post('/notifications/unsubscribe/:token', {
    helmet: PAGE_POLICY,
    schema: {
      tags: ['notifications'],
      summary: 'One-click unsubscribe (RFC 8058): turn the kind of email the link names off',
      params: Params,
      response: {
        // A browser that posted the page's form gets a page instead (typed loosely for that).
        200: Type.Unsafe<unknown>({
          description: 'Turned off (or already off): JSON for a mail client, a page for a browser that posted the form.',
          content: {
            'application/json': { schema: Unsubscribed },
            'text/html': { schema: Type.String({ description: 'A page for people.' }) },
          },
        }),
        ...FAILURES,
        413: Failure('The body is over 4 KiB.'),
        415: Failure('A body was sent with an empty Content-Type.'),
      },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const claim = await deps.unsubscribe.unsubscribe(request.params.token, originOf(request));
      // A person's browser (the page's form) gets a page; a mail client, JSON.
      const accept = String(request.headers.accept ?? '');
      const html = /\btext\/html\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
      if (claim === null) throw invalidLink();
      if (html) {
        return reply
          .type('text/html; charset=utf-8')
          .send(
            page(
              'Unsubscribed',
              `<p>You will get no more ${escapeHtml(UNSUBSCRIBE_WORDS[claim.kind])}. You can turn them on again on your profile page.</p>`,
            ),
          );
      }
      return { data: { kind: claim.kind, unsubscribed: true as const } };
    },
  });
}
