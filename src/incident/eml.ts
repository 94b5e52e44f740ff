import { randomUUID } from 'node:crypto';

/** Headers of an incident .eml. */
export interface EmlOptions {
  /** From address (RFC 5322 mailbox). */
  from: string;
  /** One or more To addresses. */
  to: string | string[];
  /** Date header; default now. */
  date?: Date;
  /** Message-ID including angle brackets; default `<uuid@domain of from>`. */
  messageId?: string;
}

/**
 * Builds an RFC 5322 message (Date, Message-ID, From, To, Subject, MIME-Version, a UTF-8
 * text/plain body) for an incident document's subject and rendered text (`renderDocumentText`;
 * its leading `Subject:` line is left out of the body), with nodemailer's MailComposer. Used for
 * the operator's drafts and the buyer-side report alike. Resolves to the message bytes.
 * Rejects when an address cannot be encoded.
 */
export async function buildIncidentEml(draft: { subject: string; text: string }, options: EmlOptions): Promise<Buffer> {
  const domain = /@([^>\s]+)>?\s*$/.exec(options.from)?.[1] ?? 'aap-triage.invalid';
  const body = draft.text.startsWith('Subject: ') ? draft.text.slice(draft.text.indexOf('\n\n') + 2) : draft.text;
  // Loaded on first use: `aap-triage/client` imports this module, and a buyer that never writes
  // an .eml should not load nodemailer (issue 13).
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
  const composer = new MailComposer({
    from: options.from,
    to: options.to,
    subject: draft.subject,
    text: body,
    date: options.date ?? new Date(),
    messageId: options.messageId ?? `<${randomUUID()}@${domain}>`,
    textEncoding: 'quoted-printable',
  });
  return composer.compile().build();
}
