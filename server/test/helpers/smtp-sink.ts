import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  html: string;
  text: string;
}

export interface SmtpSink {
  port: number;
  mails: ReceivedMail[];
  /** Logins tried, with what the server answered. */
  logins: Array<{ username: string; accepted: boolean }>;
  /** Resolves with the next mail sent to `to` (or any mail). */
  nextMail(to?: string): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1/localhost, written to a temp dir (the CA file is the cert itself). */
export function selfSignedCertificate(): { key: string; cert: string; certFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-smtp-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
}

/**
 * A real SMTP server (the smtp-server package) that keeps what it receives: optional implicit TLS
 * (`secure`), optional AUTH with one account, or `refuse` to answer every mail with a 550.
 */
export async function startSmtpSink(
  options: { secure?: { key: string; cert: string }; account?: { user: string; pass: string }; refuse?: boolean } = {},
): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const logins: SmtpSink['logins'] = [];
  const waiters: Array<{ to?: string; resolve: (mail: ReceivedMail) => void }> = [];
  const server = new SMTPServer({
    secure: Boolean(options.secure),
    key: options.secure?.key,
    cert: options.secure?.cert,
    authOptional: !options.account,
    disabledCommands: options.account ? (options.secure ? [] : ['STARTTLS']) : ['AUTH', 'STARTTLS'],
    allowInsecureAuth: !options.secure,
    logger: false,
    onAuth(auth, _session, callback) {
      const accepted = auth.username === options.account?.user && auth.password === options.account?.pass;
      logins.push({ username: auth.username ?? '', accepted });
      if (accepted) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      if (options.refuse) {
        stream.resume();
        stream.on('end', () => {
          const error = new Error('Mailbox unavailable') as Error & { responseCode: number };
          error.responseCode = 550;
          callback(error);
        });
        return;
      }
      simpleParser(stream).then((parsed) => {
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: parsed.subject ?? '',
          html: typeof parsed.html === 'string' ? parsed.html : '',
          text: parsed.text ?? '',
        };
        mails.push(mail);
        for (const waiter of [...waiters]) {
          if (!waiter.to || mail.to.includes(waiter.to)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(mail);
          }
        }
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    logins,
    nextMail(to) {
      const already = mails.find((mail) => !to || mail.to.includes(to));
      if (already) {
        mails.splice(mails.indexOf(already), 1);
        return Promise.resolve(already);
      }
      return new Promise((resolve) =>
        waiters.push({
          to,
          resolve: (mail) => {
            mails.splice(mails.indexOf(mail), 1);
            resolve(mail);
          },
        }),
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The six-digit code of a verification mail. */
export const codeIn = (mail: ReceivedMail): string => /<strong>(\d{6})<\/strong>/.exec(mail.html)?.[1] ?? '';

/** The reset link of a reset mail. */
export const resetLinkIn = (mail: ReceivedMail): URL => new URL(/href="([^"]+)"/.exec(mail.html)![1]!.replace(/&amp;/g, '&'));
