"""``GET /_cms/metrics``: the Prometheus text exposition of ``apps.core.metrics`` (issue 24, "Names").

Off unless ``CMS_METRICS_TOKEN`` is set, and then answered only to ``Authorization: Bearer <that token>``: the
figures name routes and volumes an outsider has no business seeing. While off the path does not exist (the 404 of
any unknown path), so a scanner cannot tell it apart from nothing. Outside the API prefix and outside DRF: the answer
is not JSON and not in the OpenAPI document, but a refusal is still the error envelope.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from prometheus_client import CONTENT_TYPE_LATEST

from apps.core import errors, metrics
from apps.core.api.exceptions import BEARER_CHALLENGE, error_response


def _presented_token(request: HttpRequest) -> str:
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


@require_safe
def metrics_endpoint(request: HttpRequest) -> HttpResponse:
    expected = settings.CMS_METRICS_TOKEN
    if not expected:
        raise Http404
    # Constant time: the comparison must not tell a guesser how much of the token it got right.
    if not hmac.compare_digest(_presented_token(request).encode(), expected.encode()):
        response = error_response(
            errors.Unauthorized("Send 'Authorization: Bearer <CMS_METRICS_TOKEN>' to read the metrics.")
        )
        response["WWW-Authenticate"] = BEARER_CHALLENGE
        response["Cache-Control"] = "no-store"
        return response
    response = HttpResponse(metrics.exposition(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
