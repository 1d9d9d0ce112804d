"""gunicorn settings and hooks for ``make run`` (``--config python:memoryhub.gunicorn_conf``).

- Load the embedding model before a worker takes its first request.
- Believe ``X-Forwarded-*`` only from ``MEMORYHUB_FORWARDED_ALLOW_IPS`` (the TLS proxy).
- Requests gunicorn refuses before Django sees them (a request line over 4,094 bytes,
  too many or too large headers, a malformed request line) answer in the API's JSON
  error format instead of gunicorn's HTML page: 414 ``uri_too_long``, 431
  ``headers_too_large``, 400 ``malformed_request``.
"""

import json
import os

from gunicorn import util

# Only a trusted proxy may say the client used HTTPS (X-Forwarded-Proto): the same list Django's
# memoryhub.proxy.TrustedProxyMiddleware uses for every X-Forwarded-* header (default: loopback).
forwarded_allow_ips = os.environ.get("MEMORYHUB_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# Keep idle client connections for 75 s (gunicorn's default is 2 s). A client that reused a
# connection just as the server closed it got "connection reset" or "remote end closed
# connection" (3-8% of requests in the load run's 8 req/s step, where agents paused about
# 2 s between calls). Clients that pool connections expire them sooner than this (httpx,
# and so the MemoryHub client, after 5 s), so they close first and never meet the race.
keepalive = 75

# Each worker listens on a socket of its own (SO_REUSEPORT) and the kernel spreads new connections over them.
# With one shared socket the worker that woke first accepted most of them, and because clients keep their
# connections alive (above) it kept them: in the load run one worker served most agents on one core while the
# other idled, and throughput swung between runs with how the first connections happened to land.
reuse_port = True

ERROR_CODES = {
    400: "malformed_request",
    403: "permission_denied",
    414: "uri_too_long",
    417: "malformed_request",
    431: "headers_too_large",
    500: "server_error",
    501: "not_implemented",
}
DETAILS = {
    414: "The request line (method, path and query) is longer than the server accepts (4,094 bytes).",
    431: "The request has too many headers or a header larger than the server accepts (8,190 bytes).",
}


def json_error(status_int: int, reason: str, message: str) -> bytes:
    """The raw HTTP/1.1 answer gunicorn writes for a request it refused itself."""
    body = json.dumps(
        {
            "code": ERROR_CODES.get(status_int, "malformed_request"),
            "detail": DETAILS.get(status_int) or message or reason,
            "extra": {},
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin1") + body


def write_json_error(sock, status_int, reason, mesg):
    util.write_nonblock(sock, json_error(status_int, reason, mesg))


util.write_error = write_json_error  # gunicorn has no hook for its own error pages; workers call util.write_error


def post_worker_init(worker):
    from memoryhub.embeddings import warm_up

    seconds = warm_up()
    worker.log.info("embedding model loaded in %.1fs", seconds)
