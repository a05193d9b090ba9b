"""A study's dask scheduler, checked: its address, its greeting, its security.

:func:`check_scheduler` refuses what is not a scheduler address, and
:func:`connect_scheduler` connects with a short timeout: an unreachable host,
a listener that accepts and never answers, or one that greets and then falls
silent (the whole greeting must arrive within ``scheduler_timeout``), ends in
a clear :class:`~spdgraph.errors.SchedulerError`; ``tls://`` without dask's
TLS configuration is refused naming what to configure. :func:`scheduler_client`
is the one way a run gets its ``distributed.Client`` (a study's cells, the
command line's ``--scheduler``): checked, connected, and closed afterwards.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
from collections.abc import Iterator
from typing import Any

from spdgraph.errors import InvalidOptionError, MissingDependencyError, SchedulerError

__all__ = [
    "MAX_GREETING",
    "SCHEDULER_TIMEOUT",
    "check_scheduler",
    "check_timeout",
    "connect_scheduler",
    "scheduler_client",
]

#: Default seconds to connect to a dask scheduler (``scheduler_timeout=``).
SCHEDULER_TIMEOUT = 10.0
#: Largest greeting (bytes) a dask scheduler sends on a new connection.
MAX_GREETING = 1 << 20


_ADDRESS = re.compile(
    r"^(?:(?P<scheme>[a-z][a-z0-9+]*)://)?"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})?)"
    r"(?::(?P<port>\d{1,5}))?/?$"
)
_SCHEMES = {"tcp", "tls", "ucx", "ws", "wss"}
_INPROC = re.compile(r"^inproc://[\w.:-]+(/[\w.-]+)*$")


def _is_client(value: object) -> bool:
    try:
        from distributed import Client
    except ImportError:
        return False
    return isinstance(value, Client)


def check_scheduler(scheduler: Any) -> Any:
    """``scheduler`` when it is None, ``"local"``, a Client or a scheduler address; else refuse."""
    if scheduler is None or (isinstance(scheduler, str) and scheduler == "local"):
        return scheduler
    if not isinstance(scheduler, str):
        if _is_client(scheduler):
            return scheduler
        raise InvalidOptionError(
            f"scheduler must be a dask scheduler address ('tcp://host:8786'), 'local' or a "
            f"distributed.Client, not {type(scheduler).__name__}."
        )
    if _INPROC.match(scheduler) and len(scheduler) <= 300:
        return scheduler  # a cluster in this process (LocalCluster(processes=False))
    match = _ADDRESS.match(scheduler.strip()) if len(scheduler) <= 300 else None
    bad_port = match is not None and match["port"] is not None and int(match["port"]) > 65535
    if match is None or bad_port or (match["scheme"] or "tcp") not in _SCHEMES:
        shown = scheduler if len(scheduler) <= 80 else scheduler[:77] + "..."
        raise InvalidOptionError(
            f"scheduler {shown!r} is not a dask scheduler address; give one like "
            "'tcp://host:8786' (scheme tcp, tls, ucx, ws or wss; inproc:// for a cluster in "
            "this process), or 'local' for a "
            "LocalCluster on this machine."
        )
    return scheduler.strip()


def check_timeout(timeout: object) -> float:
    """A positive, finite number of seconds."""
    import math

    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InvalidOptionError(
            f"scheduler_timeout must be a number of seconds, got {type(timeout).__name__}."
        )
    if not math.isfinite(timeout) or timeout <= 0:
        raise InvalidOptionError(
            f"scheduler_timeout must be a positive number of seconds, got {timeout!r}."
        )
    return float(timeout)


def connect_scheduler(address: str, timeout: float) -> Any:
    """A ``distributed.Client`` on ``address``, or a clear error after ``timeout`` seconds.

    A scheduler that cannot be reached, or an endpoint that accepts the
    connection and never answers the handshake, is refused with a
    :class:`SpdgraphError` naming the address and the option.
    """
    import dask
    from distributed import Client

    seconds = f"{timeout:g}s"
    _check_tls(address)
    try:
        _probe(address, timeout)
        with dask.config.set({"distributed.comm.timeouts.connect": seconds}):
            return Client(address, timeout=seconds)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(
            f"cannot reach the dask scheduler at {address!r} within {timeout:g} s "
            f"({type(exc).__name__}); check that a scheduler runs there (dask scheduler), or "
            "raise scheduler_timeout (--scheduler-timeout)."
        ) from None


def _probe(address: str, timeout: float) -> None:
    """For a tcp address: connect and wait for the scheduler's greeting, within ``timeout``.

    A dask scheduler writes its handshake as soon as it accepts a connection;
    an endpoint that accepts and stays silent (or is no scheduler) is refused
    here, before ``distributed`` would wait on it without a bound.
    """
    import socket

    match = _ADDRESS.match(address)
    if match is None or (match["scheme"] or "tcp") != "tcp":
        return  # TLS/websocket speak first from the client side: distributed's timeout
    host = match["host"].strip("[]")
    port = int(match["port"] or 8786)
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as sock:
        # distributed's frame: 8 bytes (native uint64) giving the size of what follows
        size = int.from_bytes(_receive(sock, 8, deadline), sys.byteorder)
        if not 0 < size <= MAX_GREETING:
            raise ConnectionError(f"a greeting of {size:,} bytes is no dask scheduler's")
        _receive(sock, size, deadline)  # all of it, or TimeoutError: greeted, then silent


def _receive(sock: Any, size: int, deadline: float) -> bytes:
    """``size`` bytes from ``sock`` before ``deadline`` (TimeoutError), the stream open."""
    chunks, left = [], size
    while left:
        wait = deadline - time.monotonic()
        if wait <= 0:
            raise TimeoutError("the scheduler fell silent during its greeting")
        sock.settimeout(wait)
        chunk = sock.recv(min(left, 1 << 16))
        if not chunk:
            raise ConnectionError("the connection was closed during the greeting")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _check_tls(address: str) -> None:
    """``tls://`` needs dask's TLS configuration (a CA and this client's certificate)."""
    import dask

    if not address.startswith("tls://"):
        return
    ca = dask.config.get("distributed.comm.tls.ca-file", None)
    cert = dask.config.get("distributed.comm.tls.client.cert", None)
    if not ca or not cert:
        raise SchedulerError(
            f"scheduler {address!r} speaks TLS, and no security context is configured: set "
            "dask's distributed.comm.tls.ca-file, distributed.comm.tls.client.cert and "
            ".key (e.g. DASK_DISTRIBUTED__COMM__TLS__CA_FILE=ca.pem), or pass a "
            "distributed.Client made with security=Security(...) as the scheduler."
        )


@contextlib.contextmanager
def scheduler_client(
    scheduler: Any,
    *,
    timeout: float = SCHEDULER_TIMEOUT,
    workers: int | None = None,
    processes: bool = True,
) -> Iterator[Any]:
    """A ``distributed.Client`` while the ``with`` block runs (the default scheduler).

    ``scheduler`` is checked (:func:`check_scheduler`): a Client is used as it is
    (and left open), ``"local"`` starts a ``LocalCluster`` (``workers`` workers of
    one thread, or dask's default; ``processes``), an address is reached by
    :func:`connect_scheduler` within ``timeout`` seconds. Whatever this opened is
    closed on leaving, also on an error.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingDependencyError(
            'a dask scheduler needs dask.distributed: pip install "spdgraph[dask]" (or leave '
            "the scheduler out)."
        ) from None
    scheduler, timeout = check_scheduler(scheduler), check_timeout(timeout)
    cluster = None
    if isinstance(scheduler, Client):
        client = scheduler
    elif scheduler == "local":
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1 if workers else None,
            processes=processes,
            dashboard_address=None,
        )
        client = Client(cluster)
    else:
        client = connect_scheduler(str(scheduler), timeout)
    try:
        yield client
    finally:
        if client is not scheduler:
            client.close()
        if cluster is not None:
            cluster.close()
