"""The thread pool recall's channels run on, each thread with a database connection of its own.

Lifecycle. ``BeliefsConfig.ready()`` creates one ``ChannelRunner`` per process and
registers ``shutdown`` to run at exit; ``channel_runner()`` returns it. The threads start
on first use, in the process that uses them: a pool started before a fork (Celery's
prefork parent) would be dead in the child, so a runner notices a new process id and
starts afresh. ``close_connections()`` closes every thread's connection (tests call it
before the test database is dropped); ``shutdown()`` does that and stops the threads.

When channels run in parallel. Channel threads read through their own connections, so
they see committed rows only. That is right outside any transaction and inside an API
request's own transaction (recall only reads there); inside a caller's transaction that
may hold uncommitted rows (a service, a test) every call runs inline on the caller's
connection instead. ``PARALLEL_CHANNELS = False`` runs everything inline.

Busy processes run inline too. Threads only shorten one recall's wait while cores are idle;
when other recalls are already running in this process the cores are taken, and handing
each read to a channel thread (its GIL switches, its own connection and transaction per
read) costs CPU every concurrent request then waits for: under the load run it was about a
quarter of recall's Python time. A recall that starts while another one of this process is
in flight (``in_flight``) runs its channels one after another on the request's connection.

Connection scope (a deliberate departure from "SET LOCAL only", PITFALLS). A channel
thread's connection serves channel reads and nothing else, and never goes back to a pool
another caller could draw from (Django keeps connections per thread; MemoryHub uses
persistent connections, not the shared pool). So its tenant scope is set for the session,
once per connection and tenant, instead of a BEGIN, a transaction-local scope and a
COMMIT around each of the eight or so reads of every recall. The scope is set again
whenever the tenant or the connection changes; a new connection starts unscoped and sees
no rows. Scan settings never use the session: ``beliefs.channels.vectors.vector_scan``.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from django.apps import apps
from django.conf import settings
from django.db import close_old_connections, connection, connections

from memoryhub import tracing
from memoryhub.tenancy import REQUEST_TRANSACTION_DEPTH, set_session_tenant

WORKERS = 4
# A channel thread's connection is checked (Django's health check, CONN_MAX_AGE) at most this often, and at once
# after an error: before every channel call that was a SELECT 1 round trip per read.
CONNECTION_CHECK_SECONDS = 1.0


class Done:
    """An inline call's result, shaped like a future."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


class ChannelRunner:
    """A process's pool of channel threads (see the module docstring for its lifecycle)."""

    def __init__(self, workers: int = WORKERS):
        self.workers = workers
        self._executor: ThreadPoolExecutor | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()
        self._local = threading.local()  # per channel thread: its scoped connection, tenant, last check
        self._in_flight = 0  # recalls of this process between ``batch()`` and their batch's ``close()``

    def start(self) -> ThreadPoolExecutor:
        """The running pool, started now if this process has none yet."""
        with self._lock:
            if self._executor is None or self._pid != os.getpid():
                self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="recall-channel")
                self._pid = os.getpid()
            return self._executor

    def shutdown(self) -> None:
        """Close every channel thread's connection and stop the threads."""
        if self._executor is None or self._pid != os.getpid():
            return
        try:
            self.close_connections()
        except RuntimeError:  # at interpreter exit the pool takes no new work; the server closes the sessions
            pass
        with self._lock:
            executor, self._executor = self._executor, None
        executor.shutdown(wait=True)

    def close_connections(self) -> None:
        """Close the database connection of every channel thread (before dropping a database)."""
        if self._executor is None or self._pid != os.getpid():
            return
        barrier = threading.Barrier(self.workers)

        def close() -> None:
            connections.close_all()
            self._local.__dict__.clear()
            barrier.wait(timeout=10)  # holds this thread so each task lands on a different one

        for future in [self._executor.submit(close) for _ in range(self.workers)]:
            future.result()

    def batch(self, *, tenant_id: int) -> ChannelBatch:
        """The channel calls of one recall, run on this pool when they may be (see the module docstring).

        The caller closes the batch when the recall is done (``with runner.batch(...) as batch``)."""
        with self._lock:
            busy = self._in_flight > 0
            self._in_flight += 1
        parallel = settings.MEMORYHUB["PARALLEL_CHANNELS"] and not busy and _may_run_in_parallel()
        return ChannelBatch(self if parallel else None, tenant_id, on_close=self._finished)

    def _finished(self) -> None:
        with self._lock:
            self._in_flight -= 1

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def _prepare_thread(self, tenant_id: int) -> None:
        """Make this channel thread's connection usable and scoped to ``tenant_id``."""
        state = self._local
        now = time.monotonic()
        if connection.errors_occurred or now - getattr(state, "checked_at", 0.0) >= CONNECTION_CHECK_SECONDS:
            close_old_connections()
            state.checked_at = now
        connection.ensure_connection()
        raw = connection.connection
        if getattr(state, "connection", None) is not raw or state.tenant_id != tenant_id:
            state.connection = None  # a failed set-up must not count as done
            set_session_tenant(tenant_id)
            state.connection, state.tenant_id = raw, tenant_id


class ChannelBatch:
    """Submits one recall's channel calls and records how long each took (``timings``, milliseconds)."""

    def __init__(self, runner: ChannelRunner | None, tenant_id: int, on_close: Callable[[], None] | None = None):
        self.runner = runner
        self.tenant_id = tenant_id
        self._on_close = on_close
        self.timings: dict[str, float] = {}
        self.trace_parent = tracing.current_context()  # channel spans on pool threads join the recall's trace

    def submit(self, name: str, fn: Callable, **kwargs) -> Future | Done:
        """Run ``fn(**kwargs)`` on a channel thread (or inline); the result comes from ``.result()``."""
        runner = self.runner

        def timed():
            started = time.perf_counter()
            with tracing.recall_stage(name, self.trace_parent) as stage:
                try:
                    if runner is not None:
                        runner._prepare_thread(self.tenant_id)
                    return stage.done(fn(**kwargs))
                finally:
                    self.timings[name] = round((time.perf_counter() - started) * 1000, 2)

        if runner is None:
            return Done(timed())
        return runner.start().submit(timed)

    @property
    def parallel(self) -> bool:
        return self.runner is not None

    def close(self) -> None:
        """The recall is done with its channels (idempotent)."""
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close()

    def __enter__(self) -> ChannelBatch:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def timed(self, name: str, **attributes) -> Iterator[dict]:
        """Time a stage run in the calling thread (a span of its own when tracing is on); the block may add span
        attributes to the dict it gets."""
        started = time.perf_counter()
        try:
            yield attributes
        finally:
            self.timings[name] = round((time.perf_counter() - started) * 1000, 2)
            tracing.record_stage(name, started, **attributes)


def _may_run_in_parallel() -> bool:
    """Outside transactions, or inside only an API request's own transaction (read-only for recall)."""
    if not connection.in_atomic_block:
        return True
    return REQUEST_TRANSACTION_DEPTH.get() == 1 and len(connection.atomic_blocks) == 1


def channel_runner() -> ChannelRunner:
    """This process's runner, owned by the ``beliefs`` app config."""
    return apps.get_app_config("beliefs").channel_runner


def install(config) -> ChannelRunner:
    """Give ``config`` (the ``beliefs`` app config) its runner and stop the runner when the process exits."""
    runner = ChannelRunner()
    config.channel_runner = runner
    atexit.register(runner.shutdown)
    return runner
