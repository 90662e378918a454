"""Content negotiation that answers JSON when the client asks for something we do not produce.

Clients that send ``Accept: text/html`` (browsers, curl defaults in some tools) get JSON rather than a 406; endpoints
with several representations (the schema export's TypeScript) still honour an Accept header that names one of them.
"""

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class LenientContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type
