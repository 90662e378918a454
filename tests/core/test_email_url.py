"""EMAIL_URL: one variable for the mail settings (docs/operations.md)."""

import pytest

from cms_project.environment import email_settings

SMTP = "django.core.mail.backends.smtp.EmailBackend"


def test_console_is_the_default():
    assert email_settings(None) == {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    assert email_settings("console://") == email_settings(None)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "smtp://mailer:p%40ss@mail.example.com",
            {
                "EMAIL_HOST": "mail.example.com",
                "EMAIL_PORT": 25,
                "EMAIL_HOST_USER": "mailer",
                "EMAIL_HOST_PASSWORD": "p@ss",
                "EMAIL_USE_TLS": False,
                "EMAIL_USE_SSL": False,
                "EMAIL_TIMEOUT": 10,
            },
        ),
        (
            "submission://u:p@mail.example.com",
            {
                "EMAIL_HOST": "mail.example.com",
                "EMAIL_PORT": 587,
                "EMAIL_HOST_USER": "u",
                "EMAIL_HOST_PASSWORD": "p",
                "EMAIL_USE_TLS": True,
                "EMAIL_USE_SSL": False,
                "EMAIL_TIMEOUT": 10,
            },
        ),
        (
            "smtps://mail.example.com:2465?timeout=3",
            {
                "EMAIL_HOST": "mail.example.com",
                "EMAIL_PORT": 2465,
                "EMAIL_HOST_USER": "",
                "EMAIL_HOST_PASSWORD": "",
                "EMAIL_USE_TLS": False,
                "EMAIL_USE_SSL": True,
                "EMAIL_TIMEOUT": 3,
            },
        ),
        (
            "smtp://localhost:1025?tls=1",
            {
                "EMAIL_HOST": "localhost",
                "EMAIL_PORT": 1025,
                "EMAIL_HOST_USER": "",
                "EMAIL_HOST_PASSWORD": "",
                "EMAIL_USE_TLS": True,
                "EMAIL_USE_SSL": False,
                "EMAIL_TIMEOUT": 10,
            },
        ),
    ],
)
def test_smtp_urls(url, expected):
    assert email_settings(url) == {"EMAIL_BACKEND": SMTP, **expected}


def test_an_unknown_scheme_is_an_error():
    with pytest.raises(ValueError, match="unsupported scheme 'sendgrid'"):
        email_settings("sendgrid://key")
