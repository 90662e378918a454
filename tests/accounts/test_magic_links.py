"""Magic links over HTTP: asking (no enumeration), the page the link opens, using it once, limits."""

from __future__ import annotations

import re
import smtplib
from datetime import timedelta
from io import StringIO

import pytest
from django.core import mail as django_mail
from django.core.mail.backends.locmem import EmailBackend
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.test.signals import template_rendered
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from apps.accounts import mail
from apps.accounts.models import MagicLink, Role
from apps.accounts.pages import CONTENT_SECURITY_POLICY
from apps.core.timefmt import now
from tests.conftest import ApiClient
from tests.factories import make_user

SEND = "/_cms/api/auth/magic-link/send"
VERIFY = "/_cms/api/auth/magic-link/verify"
ANSWER = {
    "success": True,
    "data": {
        "message": "If an account exists for that address, a sign-in link is on its way. It works once, for 10 minutes."
    },
}


@pytest.fixture
def member():
    return make_user(Role.CONTRIBUTOR, email="member@example.com", name="Mem Ber")


def link_token(message) -> str:
    return re.search(r"\?token=([A-Za-z0-9_-]+)", message.body).group(1)


def request_link(api, delivered, email="member@example.com") -> str:
    with delivered() as outbox:
        assert api.post(SEND, {"email": email}, format="json").status_code == 200
    return link_token(outbox[-1])


def test_asking_for_a_link_mails_one_to_a_known_address(api, member, delivered):
    with delivered() as outbox:
        response = api.post(SEND, {"email": "Member@Example.com"}, format="json")
    assert response.status_code == 200
    assert response.json() == ANSWER
    assert len(outbox) == 1
    message = outbox[0]
    assert message.to == ["member@example.com"] and message.subject == "Sign in to CMS"
    token = link_token(message)
    assert f"http://localhost:8000{VERIFY}?token={token}" in message.body
    assert "works once, for 10 minutes" in message.body
    stored = MagicLink.objects.get()
    assert stored.token_hash != token and len(stored.token_hash) == 64
    assert timedelta(minutes=9, seconds=55) < stored.expires_at - stored.created_at <= timedelta(minutes=10)


def test_the_answer_is_the_same_for_unknown_and_disabled_addresses(api, member, delivered):
    disabled = make_user(Role.EDITOR, email="gone@example.com")
    disabled.is_active = False
    disabled.save()
    for email in ("nobody@example.com", disabled.email):
        with delivered() as outbox:
            response = api.post(SEND, {"email": email}, format="json")
        assert response.status_code == 200
        assert response.json() == ANSWER
        assert outbox == []
    # Each wrote a row, as a known address does, but one that belongs to nobody.
    assert list(MagicLink.objects.values_list("user", flat=True)) == [None, None]


def test_a_link_row_without_a_user_signs_nobody_in():
    MagicLink.objects.create(user=None, token_hash="guessed", expires_at=now() + timedelta(minutes=5))
    for response in (Client().get(VERIFY, {"token": "guessed"}), Client().post(VERIFY, {"token": "guessed"})):
        assert response.status_code == 400
        assert "This sign-in link is not valid." in response.content.decode()
    assert MagicLink.objects.get().used_at is None


class RefusingBackend(EmailBackend):
    """A mail server that refuses every message."""

    def send_messages(self, messages):
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")


def mail_tasks():
    return list(DBTaskResult.objects.filter(queue_name="mail").order_by("enqueued_at"))


def test_the_answer_does_not_wait_for_the_mail_server(api, member):
    # The request only enqueues the mail, so its timing cannot reveal whether a mail was sent; a worker sends it.
    response = api.post(SEND, {"email": member.email}, format="json")
    assert response.status_code == 200
    assert django_mail.outbox == []
    [queued] = mail_tasks()
    assert (queued.status, queued.args_kwargs["kwargs"]["deliver"]) == ("READY", True)

    assert call_command_out("worker", "--once", "--queues", "mail") == "send_mail: 1\n"

    assert len(django_mail.outbox) == 1
    # The sent link is not kept in the task's record.
    [sent] = mail_tasks()
    assert (sent.status, sent.args_kwargs) == ("SUCCESSFUL", {"args": [], "kwargs": {"redacted": True}})


def test_a_refused_mail_is_tried_again_later_and_given_up_after_the_last_attempt(api, member, settings):
    settings.EMAIL_BACKEND = "tests.accounts.test_magic_links.RefusingBackend"
    settings.CMS_MAIL_ATTEMPTS = 2
    assert api.post(SEND, {"email": member.email}, format="json").status_code == 200

    call_command_out("worker", "--once", "--queues", "mail")
    first, second = mail_tasks()
    assert (first.status, first.exception_class_path) == ("FAILED", "apps.background.queues.TryAgain")
    assert first.args_kwargs == {"args": [], "kwargs": {"redacted": True}}
    assert second.status == "READY" and second.args_kwargs["kwargs"]["attempt"] == 2
    # Its turn comes after the backoff (CMS_MAIL_RETRY_BASE_SECONDS), not at once.
    wait = (second.run_after - first.finished_at).total_seconds()
    assert settings.CMS_MAIL_RETRY_BASE_SECONDS - 5 <= wait <= settings.CMS_MAIL_RETRY_BASE_SECONDS + 5
    assert call_command_out("worker", "--once", "--queues", "mail") == ""

    DBTaskResult.objects.filter(pk=second.pk).update(run_after=now())
    call_command_out("worker", "--once", "--queues", "mail")
    assert [(each.status, each.exception_class_path) for each in mail_tasks()] == [
        ("FAILED", "apps.background.queues.TryAgain"),
        ("FAILED", "smtplib.SMTPServerDisconnected"),
    ]
    assert django_mail.outbox == []


def call_command_out(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_opening_the_link_shows_a_page_and_uses_nothing(api, member, delivered):
    token = request_link(api, delivered)
    for _ in range(2):  # mail scanners fetch links; that must neither use nor burn them
        page = api.get(VERIFY, {"token": token})
        assert page.status_code == 200
        assert page["Content-Type"] == "text/html; charset=utf-8"
        html = page.content.decode()
        assert "Sign in as <strong>member@example.com</strong>" in html
        assert f'name="token" value="{token}"' in html
        assert f'<form method="post" action="{VERIFY}">' in html
    assert MagicLink.objects.get().used_at is None


def test_the_sign_in_button_uses_the_link_once(member, delivered):
    token = request_link(ApiClient(), delivered)
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(VERIFY, {"token": token})
    csrf = page.cookies["csrftoken"].value
    response = browser.post(VERIFY, {"token": token, "csrfmiddlewaretoken": csrf})
    assert response.status_code == 303
    assert response["Location"] == "/_cms/admin/"
    assert browser.get("/_cms/api/auth/me").json()["data"]["user"]["email"] == member.email
    again = Client().post(VERIFY, {"token": token})
    assert again.status_code == 400
    assert "This sign-in link has already been used." in again.content.decode()


def test_using_the_link_needs_the_csrf_token(member, delivered):
    token = request_link(ApiClient(), delivered)
    response = Client(enforce_csrf_checks=True).post(VERIFY, {"token": token})
    assert response.status_code == 403
    assert MagicLink.objects.get().used_at is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("expire", "This sign-in link has expired (links last 10 minutes). Ask for a new one."),
        ("disable", "The account this link belongs to is disabled."),
        ("garble", "This sign-in link is not valid. Check that you copied all of it, or ask for a new one."),
    ],
)
def test_unusable_links_get_a_clear_page(api, member, delivered, change, message):
    token = request_link(api, delivered)
    if change == "expire":
        MagicLink.objects.update(expires_at=now() - timedelta(seconds=1))
    elif change == "disable":
        member.is_active = False
        member.save()
    else:
        token = token[:-2]
    for response in (api.get(VERIFY, {"token": token}), Client().post(VERIFY, {"token": token})):
        assert response.status_code == 400
        assert message in response.content.decode()
        assert b"Traceback" not in response.content
    assert MagicLink.objects.get().used_at is None


def test_a_link_without_token_is_not_valid(api):
    response = api.get(VERIFY)
    assert response.status_code == 400
    assert "This sign-in link is not valid" in response.content.decode()


@override_settings(CMS_RATE_LIMITS={"api": "1200/m", "auth": "100/m", "magic_link_address": "2/15m"})
def test_links_are_limited_per_address(api, member, delivered):
    for _ in range(2):
        assert api.post(SEND, {"email": member.email}, format="json").status_code == 200
    limited = api.post(SEND, {"email": "MEMBER@example.com"}, format="json")
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) >= 1
    # The limit is the address's: another address from the same client goes through, known or not.
    assert api.post(SEND, {"email": "someone@example.com"}, format="json").status_code == 200


@override_settings(CMS_RATE_LIMITS={"api": "1200/m", "auth": "2/m", "magic_link_address": "5/15m"})
def test_links_are_limited_per_client_address(api):
    for number in range(2):
        assert api.post(SEND, {"email": f"a{number}@example.com"}, format="json").status_code == 200
    limited = api.post(SEND, {"email": "a3@example.com"}, format="json")
    assert limited.status_code == 429
    assert limited.json()["error"]["code"] == "RATE_LIMITED"


def test_the_login_page_form_works_without_javascript(member, delivered):
    browser = Client()
    with delivered() as outbox:
        response = browser.post("/_cms/admin/login/link", {"email": member.email})
    assert response.status_code == 200
    assert (
        "If an account exists for member@example.com, a sign-in link is on its way."
        in response.content.decode()
    )
    assert len(outbox) == 1
    invalid = browser.post("/_cms/admin/login/link", {"email": "not an address"})
    assert invalid.status_code == 400
    assert "Enter a valid email address." in invalid.content.decode()


# --- Where the link leads: back to the page the person was on -------------------------------------------------------


def use_link(browser: Client, token: str):
    page = browser.get(VERIFY, {"token": token})
    return browser.post(VERIFY, {"token": token, "csrfmiddlewaretoken": page.cookies["csrftoken"].value})


def test_the_login_page_carries_next_into_the_link(member, delivered):
    target = "/_cms/oauth/authorize?client_id=abc&state=x%20y"
    login = Client().get("/_cms/admin/login", {"next": target})
    assert (
        f'<input type="hidden" name="next" value="{target.replace("&", "&amp;")}">' in login.content.decode()
    )
    with delivered() as outbox:
        response = Client().post("/_cms/admin/login/link", {"email": member.email, "next": target})
    assert response.status_code == 200
    assert MagicLink.objects.get().next_url == target
    signed_in = use_link(Client(enforce_csrf_checks=True), link_token(outbox[-1]))
    assert signed_in.status_code == 303
    assert signed_in["Location"] == target


@pytest.mark.parametrize("target", ["https://evil.example/x", "//evil.example/x", ""])
def test_the_login_page_drops_a_next_off_this_site(member, delivered, target):
    with delivered() as outbox:
        Client().post("/_cms/admin/login/link", {"email": member.email, "next": target})
    assert MagicLink.objects.get().next_url == "/_cms/admin/"
    assert use_link(Client(), link_token(outbox[-1]))["Location"] == "/_cms/admin/"


def test_the_api_carries_next_into_the_link(api, member, delivered):
    with delivered() as outbox:
        response = api.post(
            SEND, {"email": member.email, "next": "/_cms/admin/device?user_code=ABCD-EFGH"}, format="json"
        )
    assert response.status_code == 200
    assert response.json() == ANSWER
    signed_in = use_link(Client(), link_token(outbox[-1]))
    assert (signed_in.status_code, signed_in["Location"]) == (303, "/_cms/admin/device?user_code=ABCD-EFGH")


def test_the_api_refuses_a_next_off_this_site(api, member, delivered):
    with delivered() as outbox:
        response = api.post(SEND, {"email": member.email, "next": "https://evil.example/"}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": "next: Must be a path on this site, such as /_cms/admin/device.",
            "details": {"next": "Must be a path on this site, such as /_cms/admin/device."},
        },
    }
    assert outbox == []


def test_a_stored_next_off_this_site_is_not_followed(api, member, delivered):
    # Defence in depth: a row changed behind the service's back still cannot send anyone elsewhere.
    token = request_link(api, delivered)
    MagicLink.objects.update(next_url="https://evil.example/")
    assert use_link(Client(), token)["Location"] == "/_cms/admin/"


# --- Asking for a link costs the same whatever the address ----------------------------------------------------------


def work_of_a_request(api, capture, email: str) -> tuple[list[str], list[str], int]:
    """What a link request for ``email`` does: its statements (first word: SELECT, INSERT …), the templates it renders,
    and how many mail tasks it enqueues."""
    templates: list[str] = []

    def rendered(sender, template, context, **kwargs):
        templates.append(template.name)

    before = DBTaskResult.objects.filter(queue_name="mail").count()
    template_rendered.connect(rendered)
    try:
        with capture(execute=True), CaptureQueriesContext(connection) as queries:
            assert api.post(SEND, {"email": email}, format="json").status_code == 200
    finally:
        template_rendered.disconnect(rendered)
    mail.wait()
    enqueued = DBTaskResult.objects.filter(queue_name="mail").count() - before
    return [query["sql"].split()[0].upper() for query in queries.captured_queries], templates, enqueued


def test_known_and_unknown_addresses_cost_the_same_work(
    api, member, django_capture_on_commit_callbacks, mailoutbox
):
    disabled = make_user(Role.EDITOR, email="gone@example.com")
    disabled.is_active = False
    disabled.save()
    known = work_of_a_request(api, django_capture_on_commit_callbacks, member.email)
    unknown = work_of_a_request(api, django_capture_on_commit_callbacks, "nobody@example.com")
    gone = work_of_a_request(api, django_capture_on_commit_callbacks, disabled.email)
    assert known == unknown == gone
    statements, templates, handed_over = known
    assert "INSERT" in statements and templates == ["cms/mail/magic_link.txt"] and handed_over == 1
    assert [message.to for message in mailoutbox] == [[member.email]]


# --- The page a link opens ------------------------------------------------------------------------------------------


def test_the_link_page_does_not_show_its_owner_as_signed_in(api, member, delivered):
    token = request_link(api, delivered)
    html = Client().get(VERIFY, {"token": token}).content.decode()
    header = html[html.index("<header>") : html.index("</header>")]
    assert header == '<header>\n    <p class="site">CMS</p>\n    \n  '
    assert "Sign in as <strong>member@example.com</strong>?" in html
    # Someone else signed in on this browser sees themselves in the header, and the question about the link's owner.
    other = Client()
    other.force_login(make_user(Role.EDITOR, email="someone@example.com"))
    html = other.get(VERIFY, {"token": token}).content.decode()
    assert '<a href="/_cms/admin/account">someone@example.com</a>' in html
    assert "member@example.com</a>" not in html and "Sign in as <strong>member@example.com</strong>?" in html


def test_the_link_pages_have_the_sign_in_pages_headers(api, member, delivered):
    token = request_link(api, delivered)
    browser = Client()
    opened = browser.get(VERIFY, {"token": token})
    answers = [
        opened,
        browser.get(VERIFY, {"token": "nope"}),
        browser.post(VERIFY, {"token": "nope"}),
        browser.post(VERIFY, {"token": token}),
    ]
    assert [response.status_code for response in answers] == [200, 400, 400, 303]
    for response in answers:
        assert response["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert response["Cache-Control"] == "no-store"
