"""Schemathesis hooks for fuzzing the API (tests/fuzz).

Request lines longer than gunicorn's limit (4,094 bytes) are refused by the HTTP server with 414 before the
application sees them, so cases whose path or query would exceed a conservative 2,000 characters are not generated.
"""

from urllib.parse import urlencode

import schemathesis

MAX_URL_PART = 2000


@schemathesis.hook
def filter_query(ctx, query):
    return query is None or len(urlencode(query, doseq=True)) <= MAX_URL_PART


@schemathesis.hook
def filter_path_parameters(ctx, path_parameters):
    return path_parameters is None or sum(len(str(v)) * 3 for v in path_parameters.values()) <= MAX_URL_PART
