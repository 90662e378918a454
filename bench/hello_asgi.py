"""The physical limit: a bare ASGI app answering the baseline's constant JSON body under gunicorn with uvicorn
workers (same configuration otherwise). Nothing written in Python on this machine answers HTTP much faster."""

from bench.hello_wsgi import BODY

START = {
    "type": "http.response.start",
    "status": 200,
    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())],
}
RESPONSE = {"type": "http.response.body", "body": BODY}


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send(START)
    await send(RESPONSE)
