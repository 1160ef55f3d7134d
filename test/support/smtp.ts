// A real SMTP server for tests (smtp-server), keeping every message it receives parsed by mailparser.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

/**
 * A local SMTP server that requires the given login and keeps every message it receives, parsed.
 * `refuse`: recipients it answers 550 to while the function says so (a mailbox that is down).
 */
export async function startSmtp(
  auth = { user: 'mailer', pass: 'secret-pass' },
  refuse: (address: string) => boolean = () => false,
): Promise<{ url: string; received: Array<{ envelope: { from: string; to: string[] }; mail: ParsedMail }>; close: () => Promise<void> }> {
  const received: Array<{ envelope: { from: string; to: string[] }; mail: ParsedMail }> = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(a, _session, cb) {
      if (a.username === auth.user && a.password === auth.pass) cb(null, { user: a.username });
      else cb(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, cb) {
      if (refuse(address.address)) cb(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      else cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (mail) => {
          received.push({ envelope: { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) }, mail });
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://${auth.user}:${auth.pass}@127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

