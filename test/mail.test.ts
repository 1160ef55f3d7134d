// The mail module (core/mail, docs/operating.md#mail): through a real SMTP server when SMTP_URL is
// set (smtp-server here, the message parsed with mailparser), else written as .eml files under
// MAIL_DIR with the log naming the file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { startSmtp } from './support/smtp.ts';
import pino from 'pino';
import { Mailer } from '../core/mail/index.ts';
import { loadConfig } from '../core/platform/index.ts';

/** A pino logger whose lines are kept. */
function memoryLog(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

describe('mail', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('with SMTP_URL, sends through the server with its login; the recipient gets what was sent', async () => {
    const smtp = await startSmtp();
    try {
      const config = loadConfig({ SMTP_URL: smtp.url, MAIL_FROM: 'Sitehealth <team@sitehealth.example>' });
      const { log, lines } = memoryLog();
      const mailer = new Mailer(config.mail, log);
      assert.equal(mailer.mode, 'smtp');
      const sent = await mailer.send({ to: 'Colleague@Example.com', subject: 'You are invited', text: 'Accept: https://sitehealth.example/invite/abc\n', html: '<p>Accept: <a href="https://sitehealth.example/invite/abc">link</a></p>' });
      mailer.close();
      assert.equal(sent.file, null);
      assert.equal(smtp.received.length, 1);
      const { envelope, mail } = smtp.received[0];
      assert.equal(envelope.from, 'team@sitehealth.example');
      assert.deepEqual(envelope.to, ['Colleague@example.com']);
      assert.equal(mail.subject, 'You are invited');
      assert.equal(mail.text, 'Accept: https://sitehealth.example/invite/abc\n');
      assert.match(String(mail.html), /href="https:\/\/sitehealth\.example\/invite\/abc"/);
      assert.equal(mail.from?.value[0].address, 'team@sitehealth.example');
      assert.equal(mail.messageId, sent.messageId);
      // The log names the message, never the SMTP password.
      assert.ok(lines.some((l) => l.msg === 'mail sent'));
      assert.ok(!JSON.stringify(lines).includes('secret-pass'));
    } finally {
      await smtp.close();
    }
  });

  it('a wrong SMTP login fails the send (the caller decides what that means)', async () => {
    const smtp = await startSmtp();
    try {
      const mailer = new Mailer(loadConfig({ SMTP_URL: smtp.url.replace('secret-pass', 'wrong') }).mail, memoryLog().log);
      await assert.rejects(mailer.send({ to: 'a@example.com', subject: 's', text: 't' }));
      mailer.close();
      assert.equal(smtp.received.length, 0);
    } finally {
      await smtp.close();
    }
  });

  it('without SMTP_URL, writes each message as an .eml file under MAIL_DIR (./data/mail by default) and logs where', async () => {
    assert.equal(loadConfig({}).mail.dir, './data/mail');
    assert.equal(loadConfig({}).mail.smtpUrl, null);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-mail-'));
    dirs.push(dir);
    const { log, lines } = memoryLog();
    const mailer = new Mailer(loadConfig({ MAIL_DIR: path.join(dir, 'mail') }).mail, log);
    assert.equal(mailer.mode, 'files');
    const a = await mailer.send({ to: 'one@example.com', subject: 'First', text: 'one' });
    const b = await mailer.send({ to: 'two@example.com', subject: 'Zweite Nachricht — ü', text: 'two' });
    assert.ok(a.file && b.file && a.file !== b.file);
    assert.equal(path.dirname(a.file), path.join(dir, 'mail'));
    assert.equal(fs.statSync(a.file).mode & 0o077, 0, 'readable by its owner only');
    const parsed = await simpleParser(fs.readFileSync(b.file));
    assert.equal(parsed.subject, 'Zweite Nachricht — ü');
    assert.equal(parsed.text?.trim(), 'two');
    assert.equal((parsed.to as { value: Array<{ address: string }> }).value[0].address, 'two@example.com');
    const logged = lines.filter((l) => l.file === a.file || l.file === b.file);
    assert.equal(logged.length, 2);
    assert.match(String(logged[0].msg), /mail written to .*\.eml/);
  });

  it('a bad SMTP_URL stops the process at start, naming the variable and not its value', () => {
    for (const bad of ['http://mail.example.com', 'not a url', 'ftp://user:hunter2@mail.example.com']) {
      assert.throws(() => loadConfig({ SMTP_URL: bad }), (e: Error) => /SMTP_URL must be an smtp/.test(e.message) && !e.message.includes(bad));
    }
  });
});
