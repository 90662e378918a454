"""Outgoing mail (sign-in links, invitations) through Django's email backend, delivered off the request thread.

A message is rendered at once, handed over when the surrounding transaction commits (a rolled-back invitation sends
nothing), and delivered by a small thread pool. The request does not wait for the mail server, so a request for a
sign-in link takes the same path whether or not the address has an account: answering only after an SMTP round trip
would tell an attacker which addresses exist (SPEC §4.9: no account enumeration). Delivery failures are logged with
the recipient's domain only; the link itself never reaches the log.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string

logger = logging.getLogger("cms.mail")

_executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="cms-mail")
_pending: set[Future] = set()
_lock = threading.Lock()


def prepare(*, to: str, subject: str, template: str, context: dict) -> EmailMessage:
    """The message: ``template`` (plain text) rendered with ``context``, addressed to ``to``; not sent."""
    body = render_to_string(template, {"site_name": settings.CMS_SITE_NAME, **context})
    return EmailMessage(subject=subject, body=body, to=[to])


def send_after_commit(message: EmailMessage, *, deliver: bool = True) -> None:
    """Hand ``message`` over for delivery once the surrounding transaction commits.

    ``deliver=False`` hands it over all the same and the delivery thread builds it as for sending, then drops it: a
    sign-in link request for an address without an account costs the process the same work as one that mails."""
    transaction.on_commit(lambda: _submit(message, deliver), robust=True)


def send_later(*, to: str, subject: str, template: str, context: dict) -> None:
    """Render ``template`` (plain text) with ``context`` and send it to ``to`` once the transaction commits."""
    send_after_commit(prepare(to=to, subject=subject, template=template, context=context))


def _submit(message: EmailMessage, deliver: bool = True) -> None:
    future = _executor.submit(_deliver, message, deliver)
    with _lock:
        _pending.add(future)
    future.add_done_callback(_forget)


def _forget(future: Future) -> None:
    with _lock:
        _pending.discard(future)


def _deliver(message: EmailMessage, deliver: bool) -> None:
    if not deliver:
        message.message()  # what sending costs here before the mail server (the MIME message); nothing leaves
        return
    try:
        message.send()
    except Exception:
        domain = message.to[0].rpartition("@")[2] if message.to else "?"
        logger.exception("mail delivery failed", extra={"to_domain": domain, "subject": message.subject})


def wait(timeout: float = 10) -> None:
    """Block until every message handed over so far has been delivered or has failed (tests, shutdown)."""
    with _lock:
        pending = list(_pending)
    for future in pending:
        future.result(timeout=timeout)
