import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';

/**
 * A real SMTP server on loopback in the test process (smtp-server + mailparser): the service sends to it through
 * nodemailer as it would to any mail server, and the tests read what it received, follow its link or type its code.
 * Faults: `refuse(4xx or 5xx)` answers every mail so; `stop()` then `start()` takes it away and back on the same port.
 */

export interface CaughtMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  /** The first link in the text part. */
  link: string | null;
  /** The 6-digit code in the text part. */
  code: string | null;
  receivedAt: number;
  parsed: ParsedMail;
}

export interface SmtpCatcher {
  port: number;
  /** `smtp://127.0.0.1:<port>` (no TLS, no auth), for SMTP_URL. */
  url: string;
  mails: CaughtMail[];
  /** Every mail to this address so far. */
  to(address: string): CaughtMail[];
  /** Waits for the nth (1-based) mail to `address` (default the first). */
  waitFor(address: string, count?: number, timeoutMs?: number): Promise<CaughtMail>;
  /** Answers every following mail with this SMTP status (451, 550, ...) until `accept()`. */
  refuse(code: number, message?: string): void;
  /** Takes every following mail's data and never answers it (a sender stuck mid-send), until `accept()`. */
  stall(): void;
  /** Mails whose data arrived while stalled. */
  stalled: number;
  accept(): void;
  /** Closes the listening socket (connections are refused), keeping what was received. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const LINK = /https?:\/\/[^\s<>"]+/;
const CODE = /\b(\d{6})\b/;

export async function startSmtpCatcher(options: { port?: number } = {}): Promise<SmtpCatcher> {
  const mails: CaughtMail[] = [];
  const waiters = new Set<() => void>();
  let refusal: { code: number; message: string } | null = null;
  let stalling = false;
  let stalled = 0;
  let port = options.port ?? 0;

  const serverOptions: SMTPServerOptions = {
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stalling) {
          stalled += 1;
          return;
        }
        if (refusal) {
          const error = Object.assign(new Error(refusal.message), { responseCode: refusal.code });
          callback(error);
          return;
        }
        simpleParser(Buffer.concat(chunks))
          .then((parsed) => {
            const text = parsed.text ?? '';
            const toValue = Array.isArray(parsed.to) ? parsed.to[0] : parsed.to;
            mails.push({
              to: (toValue?.value[0]?.address ?? '').toLowerCase(),
              from: parsed.from?.value[0]?.address ?? '',
              subject: parsed.subject ?? '',
              text,
              html: typeof parsed.html === 'string' ? parsed.html : '',
              link: LINK.exec(text)?.[0] ?? null,
              code: CODE.exec(text)?.[1] ?? null,
              receivedAt: Date.now(),
              parsed,
            });
            callback();
            for (const wake of waiters) wake();
          })
          .catch((error: Error) => callback(error));
      });
    },
  };

  let server: SMTPServer;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = new SMTPServer(serverOptions);
      server.on('error', () => undefined);
      const socket = server.server;
      socket.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (socket.address() as AddressInfo).port;
        resolve();
      });
    });
  const shut = () => new Promise<void>((resolve) => server.close(() => resolve()));
  await listen();

  const catcher: SmtpCatcher = {
    get port() {
      return port;
    },
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    mails,
    to: (address) => mails.filter((mail) => mail.to === address.toLowerCase()),
    waitFor(address, count = 1, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = catcher.to(address);
          if (found.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found[count - 1]!);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail #${count} to ${address} within ${timeoutMs} ms (received: ${mails.map((m) => m.to).join(', ')})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stall() {
      stalling = true;
    },
    get stalled() {
      return stalled;
    },
    refuse(code, message = code >= 500 ? 'Mailbox unavailable' : 'Try again later') {
      refusal = { code, message };
    },
    accept() {
      refusal = null;
      stalling = false;
    },
    stop: shut,
    start: listen,
    close: shut,
  };
  return catcher;
}
