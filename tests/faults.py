"""Faults to inject: a disk that fills up while media is being written; servers that hang or are stopped."""

from __future__ import annotations

import errno
import os
import socket
import threading

from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage


class FullDisk:
    """From the ``after``-th file on, FileSystemStorage writes the first half of each file, then fails with ``code``
    as a full disk does, leaving that half behind. ``partial`` lists the paths it left, to show the cleanup had
    something to clean; ``freed()`` ends the fault."""

    def __init__(self, monkeypatch, code: int = errno.ENOSPC, *, after: int = 0):
        self.monkeypatch = monkeypatch
        self.partial: list[str] = []
        saves = 0
        real_save = FileSystemStorage._save

        def _save(storage, name, content):
            nonlocal saves
            saves += 1
            if saves <= after:
                return real_save(storage, name, content)
            content.seek(0)
            data = content.read()
            written = storage.path(real_save(storage, name, ContentFile(data[: len(data) // 2])))
            assert os.path.getsize(written) == len(data) // 2
            self.partial.append(written)
            raise OSError(code, os.strerror(code), written)

        monkeypatch.setattr(FileSystemStorage, "_save", _save)

    def freed(self) -> None:
        self.monkeypatch.undo()


class HungServer:
    """A TCP server that completes every connection and never answers: a hung Redis or object storage. Its
    connections wait in the listen queue; ``accepted()`` takes the ones made so far and says how many there were
    altogether (each is one attempt a client made). Use as a context manager."""

    def __init__(self):
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(128)
        self._socket.setblocking(False)
        self._held: list[socket.socket] = []
        self.port = self._socket.getsockname()[1]

    def accepted(self) -> int:
        while True:
            try:
                connection, _ = self._socket.accept()
            except BlockingIOError:
                return len(self._held)
            self._held.append(connection)

    def __enter__(self) -> HungServer:
        return self

    def __exit__(self, *_exc) -> None:
        for connection in self._held:
            connection.close()
        self._socket.close()


def closed_port() -> int:
    """A local port nothing listens on (connections are refused): a stopped server."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# What a Redis without keys answers to the reads Django's cache makes; everything else is "+OK".
# HELLO: redis-py speaks RESP3 and wants the protocol confirmed in a map.
ANSWERS = {"GET": b"$-1\r\n", "EXISTS": b":0\r\n", "PING": b"+PONG\r\n", "HELLO": b"%1\r\n+proto\r\n:3\r\n"}


class SwitchableRedis:
    """A Redis stand-in on one address that either hangs (accepts, never answers) or answers every command as a
    Redis with no keys would (``+OK`` to writes such as ``SET … NX``, nil to reads). ``commands`` lists the names of
    the commands it answered. Use as a context manager; ``hung`` switches it."""

    def __init__(self, *, hung: bool):
        self.hung = hung
        self.commands: list[str] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._open: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return
            self._open.append(connection)
            if not self.hung:
                threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        stream = connection.makefile("rb")
        try:
            while header := stream.readline():
                # An array of bulk strings: "$<length>", then that many bytes and CRLF (values may hold CRLF).
                parts = [stream.read(int(stream.readline()[1:]) + 2)[:-2] for _ in range(int(header[1:]))]
                name = parts[0].decode().upper()
                self.commands.append(name)
                connection.sendall(ANSWERS.get(name, b"+OK\r\n"))
        except (OSError, ValueError):
            return

    def __enter__(self) -> SwitchableRedis:
        return self

    def __exit__(self, *_exc) -> None:
        self._server.close()
        for connection in self._open:
            connection.close()
