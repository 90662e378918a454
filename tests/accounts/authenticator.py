"""A software WebAuthn authenticator for HTTP tests: makes ES256 passkeys and signs assertions as a browser would.

It builds what Web Authentication §6.1 (authenticator data), §6.5 (attestation object, format "none") and §5.8.1
(client data) describe, so the server's real verification runs on it. Each knob a test needs to attack the server is a
keyword argument: another origin, another RP id, no user verification, a chosen sign counter, a foreign challenge.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

FLAG_UP = 0x01  # user present
FLAG_UV = 0x04  # user verified
FLAG_AT = 0x40  # attested credential data included


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Passkey:
    credential_id: bytes
    private_key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    sign_count: int = 0

    def cose_public_key(self) -> bytes:
        numbers = self.private_key.public_key().public_numbers()
        return cbor2.dumps(
            {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
        )


@dataclass
class SoftAuthenticator:
    origin: str = "http://localhost:8000"
    passkeys: list[Passkey] = field(default_factory=list)

    @property
    def rp_id(self) -> str:
        return self.origin.split("://", 1)[1].split(":", 1)[0]

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}
        return json.dumps(data, separators=(",", ":")).encode()

    def create(
        self,
        options: dict,
        *,
        origin: str | None = None,
        rp_id: str | None = None,
        user_verified: bool = True,
        challenge: str | None = None,
        credential_id: bytes | None = None,
    ) -> dict:
        """What ``navigator.credentials.create()`` + ``toJSON()`` returns for ``options``."""
        passkey = Passkey(
            credential_id=credential_id or os.urandom(32),
            private_key=ec.generate_private_key(ec.SECP256R1()),
            rp_id=rp_id or options["rp"]["id"],
            user_handle=unb64url(options["user"]["id"]),
        )
        flags = FLAG_UP | FLAG_AT | (FLAG_UV if user_verified else 0)
        attested = (
            bytes(16)  # AAGUID
            + struct.pack(">H", len(passkey.credential_id))
            + passkey.credential_id
            + passkey.cose_public_key()
        )
        auth_data = (
            hashlib.sha256(passkey.rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", 0) + attested
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", challenge or options["challenge"], origin)
        self.passkeys.append(passkey)
        return {
            "id": b64url(passkey.credential_id),
            "rawId": b64url(passkey.credential_id),
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
            "type": "public-key",
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def get(
        self,
        options: dict,
        *,
        passkey: Passkey | None = None,
        origin: str | None = None,
        user_verified: bool = True,
        sign_count: int | None = None,
        user_handle: bytes | None = None,
        challenge: str | None = None,
    ) -> dict:
        """What ``navigator.credentials.get()`` + ``toJSON()`` returns: an assertion by ``passkey`` (the last one)."""
        passkey = passkey or self.passkeys[-1]
        passkey.sign_count = passkey.sign_count + 1 if sign_count is None else sign_count
        flags = FLAG_UP | (FLAG_UV if user_verified else 0)
        auth_data = (
            hashlib.sha256(passkey.rp_id.encode()).digest()
            + bytes([flags])
            + struct.pack(">I", passkey.sign_count)
        )
        client_data = self._client_data("webauthn.get", challenge or options["challenge"], origin)
        signature = passkey.private_key.sign(
            auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256())
        )
        return {
            "id": b64url(passkey.credential_id),
            "rawId": b64url(passkey.credential_id),
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(passkey.user_handle if user_handle is None else user_handle),
            },
            "type": "public-key",
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
