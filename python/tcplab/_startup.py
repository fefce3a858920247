"""Ctrl-C in the ``tcplab`` program: while it starts up, and once it runs.

Importing tcplab (pyarrow, pandas, the extension) takes from a fraction of a second to a
few seconds on a busy machine, and it happens before ``tcplab.cli.main`` runs: a
KeyboardInterrupt raised there escaped with a traceback and the process ended by SIGINT
(status -2) instead of the command line's "interrupted" and 130. Importing this module
(the package's first import) installs, in the command-line program only, a SIGINT handler
that says so and exits with 130 at once; ``main`` hands SIGINT back to Python's handler
with :func:`release` as soon as it can catch KeyboardInterrupt itself. A library user's
process is left alone, as is a SIGINT that was ignored (a shell's background job).

Once ``main`` runs, SIGINT raises KeyboardInterrupt as Python's own handler does, and
also records that it came (:func:`interrupted`). A KeyboardInterrupt that lands in a
finaliser (a ``__del__``, a weakref callback) is only reported as "Exception ignored" and
the program goes on; loops that wait long (the sweep's worker pool) look at the record and
raise it again where it cannot be lost. Measured on ``reproduce profiles``: 2 of 85
interrupted runs went on to finish (exit 0) before this.
"""

from __future__ import annotations

import os
import signal
import sys


def _is_command_line() -> bool:
    """True in the ``tcplab`` console script and in ``python -m tcplab.cli``."""
    if sys.argv and os.path.basename(sys.argv[0]) == "tcplab":
        return True
    orig = getattr(sys, "orig_argv", [])
    return any(a == "-m" and b == "tcplab.cli" for a, b in zip(orig, orig[1:]))


def command_name(argv: list[str] | None = None) -> str | None:
    """The subcommand in `argv` (default: the program's), as far as it can be told
    before parsing: the first argument that is not an option."""
    args = sys.argv[1:] if argv is None else argv
    return next((a for a in args if not a.startswith("-")), None)


def interrupted_line(argv: list[str] | None = None) -> str:
    """The one line the program prints on Ctrl-C: ``tcplab CMD: interrupted``."""
    cmd = command_name(argv)
    return f"tcplab {cmd}: interrupted" if cmd else "tcplab: interrupted"


def _interrupted_at_startup(signum, frame) -> None:  # noqa: ARG001 - signal handler
    try:
        sys.stderr.write(interrupted_line() + "\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def guard() -> None:
    """Installs the start-up handler (command line only, and only over Python's own)."""
    import threading

    if (_is_command_line() and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        signal.signal(signal.SIGINT, _interrupted_at_startup)


_SEEN = False


def _sigint(signum, frame) -> None:  # noqa: ARG001 - signal handler
    global _SEEN
    _SEEN = True
    raise KeyboardInterrupt


def interrupted() -> bool:
    """True once the program has had a Ctrl-C (always False in a library user's
    process: the handler is the program's)."""
    return _SEEN


def release() -> None:
    """Once ``main`` can catch KeyboardInterrupt: SIGINT raises it (and is recorded)."""
    if signal.getsignal(signal.SIGINT) is _interrupted_at_startup:
        signal.signal(signal.SIGINT, _sigint)


guard()
