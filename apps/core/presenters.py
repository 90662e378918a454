"""Output shapes every domain shares (the error envelope and the bare success flag), and core's own health check."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from pydantic import Field

from apps.core.shapes import TypedDict


class ErrorOut(TypedDict):
    code: Annotated[str, Field(description="Machine-readable error code (SPEC §7), e.g. VALIDATION_ERROR.")]
    message: Annotated[str, Field(description="What went wrong and how to fix it.")]
    details: Annotated[
        Any, Field(description="For VALIDATION_ERROR: each bad field mapped to what is expected.")
    ]
    pointers: NotRequired[
        Annotated[
            dict[str, str],
            Field(
                description="For VALIDATION_ERROR on values inside the request (an entry's data): each key of "
                "details mapped to the JSON pointer (RFC 6901) of the bad value, e.g. /data/body/0/children/1/text."
            ),
        ]
    ]


class ErrorEnvelopeOut(TypedDict):
    success: Annotated[bool, Field(description="Always false.")]
    error: ErrorOut


class SuccessFlagOut(TypedDict):
    success: Annotated[bool, Field(description="Always true.")]


SUCCESS: SuccessFlagOut = {"success": True}


class HealthOut(TypedDict):
    status: Annotated[str, Field(description="ok")]
    database: Annotated[str, Field(description="The database vendor: sqlite or postgresql.")]


class ReadinessCheckOut(TypedDict):
    ok: Annotated[bool, Field(description="Whether the check passed.")]
    detail: NotRequired[
        Annotated[str, Field(description="What failed and how to fix it, e.g. '3 unapplied; run migrate'.")]
    ]


class ReadinessOut(TypedDict):
    status: Annotated[
        str, Field(description="ready (a 503 answers not_ready, with the same checks in details).")
    ]
    checks: Annotated[
        dict[str, ReadinessCheckOut],
        Field(
            description="Each applicable check by name: database, migrations, redis (when a Redis cache is "
            "configured), mediaStorage and importStorage (when on object storage), and any a deployment adds."
        ),
    ]
