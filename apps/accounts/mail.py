"""Outgoing mail (sign-in links, invitations) as tasks on the ``mail`` queue, tried again when the server fails.

A message is rendered at once and enqueued with the surrounding transaction (a rolled-back invitation sends nothing);
a worker delivers it. The request does not wait for the mail server, so a request for a sign-in link takes the same
path whether or not the address has an account: answering only after an SMTP round trip would tell an attacker which
addresses exist (SPEC §4.9: no account enumeration). A failed delivery (the server refused or did not answer) is tried
again after an exponential backoff, up to CMS_MAIL_ATTEMPTS times. Failures are logged with the recipient's domain
only; the link itself never reaches the log, and a sent message's task record keeps no copy of it.
"""

from __future__ import annotations

import logging
import smtplib

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django_tasks import task

from apps.background import runner
from apps.background.queues import MAIL, enqueue, retry_or_raise

logger = logging.getLogger("cms.mail")


def prepare(*, to: str, subject: str, template: str, context: dict) -> EmailMessage:
    """The message: ``template`` (plain text) rendered with ``context``, addressed to ``to``; not sent."""
    body = render_to_string(template, {"site_name": settings.CMS_SITE_NAME, **context})
    return EmailMessage(subject=subject, body=body, to=[to])


def send_after_commit(message: EmailMessage, *, deliver: bool = True) -> None:
    """Enqueue ``message`` with the surrounding transaction.

    ``deliver=False`` enqueues it all the same and the worker builds it as for sending, then drops it: a sign-in
    link request for an address without an account costs the request the same work as one that mails."""
    enqueue(
        send_mail,
        message={"subject": message.subject, "body": message.body, "to": list(message.to)},
        deliver=deliver,
    )


def send_later(*, to: str, subject: str, template: str, context: dict) -> None:
    """Render ``template`` (plain text) with ``context`` and send it to ``to`` once the transaction commits."""
    send_after_commit(prepare(to=to, subject=subject, template=template, context=context))


@task(queue_name=MAIL)
def send_mail(message: dict, deliver: bool = True, attempt: int = 1) -> int:
    email = EmailMessage(subject=message["subject"], body=message["body"], to=message["to"])
    if not deliver:
        email.message()  # what sending costs here before the mail server (the MIME message); nothing leaves
        return 0
    try:
        email.send()
    except (smtplib.SMTPException, OSError) as error:
        domain = message["to"][0].rpartition("@")[2] if message["to"] else "?"
        logger.warning(
            "mail delivery failed",
            extra={
                "to_domain": domain,
                "subject": message["subject"],
                "attempt": attempt,
                "error": repr(error),
            },
        )
        retry_or_raise(
            send_mail,
            error,
            message=message,
            deliver=deliver,
            attempt=attempt,
            attempts=settings.CMS_MAIL_ATTEMPTS,
            base=settings.CMS_MAIL_RETRY_BASE_SECONDS,
            cap=3600,
        )
    return 1


runner.REDACTING.add(send_mail.name)


def wait() -> None:
    """Deliver, in this thread, every message enqueued so far and ready to go (tests, the command line)."""
    from apps.background.worker import drain

    drain([MAIL])
