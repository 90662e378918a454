"""Content negotiation that answers JSON when the client asks for something we do not produce.

Clients that send ``Accept: text/html`` (browsers, curl defaults in some tools) get JSON rather than a 406; endpoints
with several representations (the schema export's TypeScript) still honour an Accept header that names one of them.
"""

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

# Parsing the Accept header was a twentieth of a simple GET, and clients send the same few headers again and again:
# the choice is remembered per (renderers, Accept, format). Bounded, since the header is the client's to choose.
_CHOICES: dict[tuple, tuple[int, str]] = {}
_MAX_CHOICES = 256


class LenientContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        key = (
            tuple(type(renderer) for renderer in renderers),
            request.META.get("HTTP_ACCEPT", "*/*"),
            request.query_params.get(self.settings.URL_FORMAT_OVERRIDE)
            if self.settings.URL_FORMAT_OVERRIDE
            else None,
            format_suffix,
        )
        choice = _CHOICES.get(key)
        if choice is None:
            try:
                renderer, media_type = super().select_renderer(request, renderers, format_suffix)
            except NotAcceptable:
                renderer, media_type = renderers[0], renderers[0].media_type
            if len(_CHOICES) >= _MAX_CHOICES:
                _CHOICES.clear()
            choice = _CHOICES[key] = (renderers.index(renderer), media_type)
        index, media_type = choice
        return renderers[index], media_type
