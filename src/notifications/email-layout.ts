import { clip, escapeHtml, oneLine } from '../wire/plain-text.js';

/**
 * E11.3: one layout for every email, in two parts. The text part is what a plain-text reader (and
 * a screen reader) gets; the HTML part is a single centred table with inline styles only, no
 * images, no scripts and no external resources, which is what Gmail, Outlook and Apple Mail all
 * render the same way. Every piece of user text (project and team names, messages, paths) is
 * escaped here, once; the kinds (email-kinds.ts) hand over plain words.
 */

export interface EmailLink {
  label: string;
  url: string;
}

/** A row of a table: its cells in words, and where the first one links to. */
export interface EmailRow {
  cells: string[];
  url?: string;
}

export interface EmailContent {
  subject: string;
  heading: string;
  /** How the heading is marked: a failure in red, a recovery in green. */
  tone: 'good' | 'bad' | 'neutral';
  /** Sentences, one paragraph each. */
  paragraphs: string[];
  /** A bulleted list (a failed gate's reasons). */
  bullets?: string[];
  table?: { head: string[]; rows: EmailRow[]; more?: EmailLink };
  /** The main link, as a button. */
  action: EmailLink;
  /** Why this person got the email, and how to stop it. */
  footer: { reason: string; settingsUrl: string; unsubscribeUrl: string | null };
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** Subjects are one line, cut short enough for every client's list. */
const SUBJECT_MAX = 150;
/** Cells of user text (a message, a path) are cut: an email is a summary, the dashboard has the rest. */
const CELL_MAX = 200;

/** One line (a header never takes a line break from user text), cut to `max`. */
export const cut = (raw: string, max: number) => clip(oneLine(raw), max);

const COLOURS = { good: '#1a7f37', bad: '#cf222e', neutral: '#1f2328' } as const;
const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif";
const MUTED = 'color:#59636e;font-size:13px;line-height:20px';

function link(item: EmailLink, style = 'color:#0969da;text-decoration:underline'): string {
  return `<a href="${escapeHtml(item.url)}" style="${style}">${escapeHtml(item.label)}</a>`;
}

function htmlTable(table: NonNullable<EmailContent['table']>): string {
  const th = table.head
    .map((cell) => `<th align="left" style="padding:6px 8px;border-bottom:1px solid #d1d9e0;${MUTED}">${escapeHtml(cell)}</th>`)
    .join('');
  const rows = table.rows
    .map((row) => {
      const cells = row.cells.map((raw, index) => {
        const text = cut(raw, CELL_MAX);
        const inner = index === 0 && row.url ? link({ label: text, url: row.url }) : escapeHtml(text);
        return `<td valign="top" style="padding:6px 8px;border-bottom:1px solid #eff2f5;font-size:14px;line-height:20px">${inner}</td>`;
      });
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('');
  const more = table.more ? `<p style="margin:8px 0 0;font-size:14px">${link(table.more)}</p>` : '';
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;margin:16px 0 0"><tr>${th}</tr>${rows}</table>${more}`;
}

function textTable(table: NonNullable<EmailContent['table']>): string {
  const lines = table.rows.map((row) => {
    const [first = '', ...rest] = row.cells.map((cell) => cut(cell, CELL_MAX));
    const tail = rest.filter((cell) => cell !== '').join(' · ');
    return `- ${first}${tail ? ` · ${tail}` : ''}${row.url ? `\n  ${row.url}` : ''}`;
  });
  if (table.more) lines.push(`${table.more.label}: ${table.more.url}`);
  return lines.join('\n');
}

export function renderEmail(content: EmailContent): RenderedEmail {
  const subject = cut(content.subject, SUBJECT_MAX);
  const paragraphs = content.paragraphs.map(oneLine);
  const bullets = (content.bullets ?? []).map((bullet) => cut(bullet, CELL_MAX));
  const { footer } = content;

  const text = [
    oneLine(content.heading),
    '',
    ...paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(bullets.length > 0 ? [...bullets.map((bullet) => `- ${bullet}`), ''] : []),
    ...(content.table ? [textTable(content.table), ''] : []),
    `${content.action.label}: ${content.action.url}`,
    '',
    '-- ',
    oneLine(footer.reason),
    `Your notification settings: ${footer.settingsUrl}`,
    ...(footer.unsubscribeUrl ? [`Unsubscribe from these emails: ${footer.unsubscribeUrl}`] : []),
    '',
  ].join('\n');

  const body = [
    `<h1 style="margin:0 0 16px;font-size:20px;line-height:28px;color:${COLOURS[content.tone]}">${escapeHtml(oneLine(content.heading))}</h1>`,
    ...paragraphs.map((paragraph) => `<p style="margin:0 0 12px;font-size:15px;line-height:22px">${escapeHtml(paragraph)}</p>`),
    bullets.length > 0
      ? `<ul style="margin:0 0 12px;padding-left:20px;font-size:15px;line-height:22px">${bullets.map((bullet) => `<li>${escapeHtml(bullet)}</li>`).join('')}</ul>`
      : '',
    content.table ? htmlTable(content.table) : '',
    `<p style="margin:24px 0 0">${link(
      content.action,
      'display:inline-block;padding:10px 16px;border-radius:6px;background:#1f883d;color:#ffffff;font-weight:600;font-size:15px;text-decoration:none',
    )}</p>`,
  ].join('');
  const unsubscribe = footer.unsubscribeUrl
    ? ` · ${link({ label: 'Unsubscribe from these emails', url: footer.unsubscribeUrl }, 'color:#59636e;text-decoration:underline')}`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f6f8fa;${FONT};color:#1f2328">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f6f8fa"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border:1px solid #d1d9e0;border-radius:8px">
<tr><td style="padding:12px 24px;border-bottom:1px solid #d1d9e0;font-size:14px;font-weight:600;color:#59636e">Scoreboard</td></tr>
<tr><td style="padding:24px;${FONT};color:#1f2328">${body}</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #d1d9e0;${MUTED}">${escapeHtml(oneLine(footer.reason))}<br>${link(
    { label: 'Notification settings', url: footer.settingsUrl },
    'color:#59636e;text-decoration:underline',
  )}${unsubscribe}</td></tr>
</table></td></tr></table>
</body></html>
`;
  return { subject, text, html };
}
