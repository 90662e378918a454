"""Print a PostgreSQL URL the tests can use, or exit 1: TEST_DATABASE_URL, else a local server on 127.0.0.1:5432.

The tests create their own database (test_<name>), so the probe connects to the server's maintenance database.
"""

import os
import sys
from urllib.parse import urlsplit, urlunsplit

import psycopg

DEFAULT = "postgres://postgres@127.0.0.1:5432/cms"


def reachable(url: str) -> bool:
    maintenance = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    try:
        with psycopg.connect(maintenance, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


def main() -> int:
    configured = os.environ.get("TEST_DATABASE_URL")
    url = configured or DEFAULT
    if reachable(url):
        print(url)
        return 0
    if configured:
        print(f"TEST_DATABASE_URL is set but the server does not answer: {url}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
