"""A column that stores only the SHA-256 of a secret, and hashes the secret on every lookup as well.

django-oauth-toolkit stores authorization codes and device codes as they are and looks them up with plain
``Grant.objects.get(code=code)``. Declared with this field, the same code stores ``sha256(code)`` and the same lookup
hashes its argument first, so the toolkit's queries keep working unchanged while a copy of the database holds no
usable code (RFC 9700 §4.14, "store hashes, not the credentials").

A value read back from the database is a :class:`Digest`; only a ``Digest`` is written or compared as it is. Anything
else, including a string a client sends that happens to look like a stored digest, is hashed again, so knowing a
digest does not let anyone redeem it.
"""

from __future__ import annotations

import hashlib

from django.db import models


class Digest(str):
    """A hex SHA-256 digest that came from the database: stored and compared without hashing it again."""


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


class HashedSecretField(models.CharField):
    def __init__(self, *args, **kwargs):
        kwargs["max_length"] = 64
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs.pop("max_length", None)
        return name, path, args, kwargs

    def from_db_value(self, value, expression, connection):
        return None if value is None else Digest(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None or value == "" or isinstance(value, Digest):
            return value
        return sha256_hex(value)

    def pre_save(self, model_instance, add):
        # Replace the secret on the instance by its digest, so the usable value does not outlive the save in memory.
        value = getattr(model_instance, self.attname)
        if value and not isinstance(value, Digest):
            value = Digest(sha256_hex(value))
            setattr(model_instance, self.attname, value)
        return value
