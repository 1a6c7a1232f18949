"""Mail layer (issue 9): read hostile mail safely, move it through transports, and run the intake.

Modules:
  message    read_message(raw) -> MailIn, game_tag(subject)          (never raises)
  htmltext   HTML-only mail -> plain text (ORDERS.md: "HTML-only mail is read from its text")
  compose    build_mail(...) / reply_subject(...) for outgoing mail
  transport  Incoming, the transport protocols, make_transports(config, base_dir)
  folder     FolderTransport: inbox/ of *.eml, *.txt or a Maildir; outbox/ of *.eml
  imap       ImapTransport (imapclient) with a UIDVALIDITY + UID checkpoint
  smtp       SmtpTransport (smtplib)
  directory  GameContact / GameDirectory: who may write to which game, with which token
  routing    which game a mail is for; who sent it (address + TOKEN)
  notices    the polite texts the intake sends by itself (unroutable, auth, claim notice, errors)
  ledger     the append-only, fsynced JSON-lines ledger of message states
  intake     Intake.run_once(): store -> dedupe -> route -> authenticate -> handle -> reply -> ack
"""
