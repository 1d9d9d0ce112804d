"""A local OpenAI-compatible chat server for tests: it records requests and answers from what it was shown."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    """``POST /v1/chat/completions``: answers "You live in <city>." when a message names a city it knows.

    ``reply``, when given, writes the answer instead: it gets the request body and returns the message content.
    """

    CITIES = ("Berlin", "Lisbon")

    def __init__(self, reply: Callable[[dict], str] | None = None):
        self.requests: list[dict] = []
        self.reply = reply
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                seen = " ".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
                city = next((c for c in fake.CITIES if c in seen), None)
                reply = f"You live in {city}." if city else "I do not know where you live."
                if fake.reply is not None:
                    reply = fake.reply(body)
                payload = {
                    "id": f"chatcmpl-{len(fake.requests)}",
                    "object": "chat.completion",
                    "created": 1_700_000_000,
                    "model": body["model"],
                    "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}
                    ],  # fmt: skip
                    "usage": {
                        "prompt_tokens": len(seen) // 4,
                        "completion_tokens": 6,
                        "total_tokens": len(seen) // 4 + 6,
                    },
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
