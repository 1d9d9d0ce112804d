"""A TCP forwarder on a fixed loopback port that can be stopped and started: a service going down and up."""

from __future__ import annotations

import select
import socket
import socketserver
import threading


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Forward(socketserver.BaseRequestHandler):
    def handle(self):
        upstream = socket.create_connection(self.server.target, timeout=30)
        sockets = [self.request, upstream]
        try:
            while True:
                readable, _, _ = select.select(sockets, [], [], 30)
                if not readable:
                    return
                for source in readable:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is self.request else self.request).sendall(data)
        finally:
            upstream.close()


class TcpProxy:
    """``url`` stays the same across ``stop()`` and ``start()``; while stopped, connections are refused."""

    def __init__(self, target_host: str, target_port: int):
        self.port = free_port()
        self.target = (target_host, target_port)
        self._server: socketserver.ThreadingTCPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        socketserver.ThreadingTCPServer.allow_reuse_address = True
        server = socketserver.ThreadingTCPServer(("127.0.0.1", self.port), _Forward)
        server.daemon_threads = True
        server.target = self.target
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._server = server

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
