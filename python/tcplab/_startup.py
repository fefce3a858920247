"""Ctrl-C while the ``tcplab`` command is still starting up.

Importing tcplab (pyarrow, pandas, the extension) takes from a fraction of a second to a
few seconds on a busy machine, and it happens before ``tcplab.cli.main`` runs: a
KeyboardInterrupt raised there escaped with a traceback and the process ended by SIGINT
(status -2) instead of the command line's "interrupted" and 130. Importing this module
(the package's first import) installs, in the command-line program only, a SIGINT handler
that says so and exits with 130 at once; ``main`` hands SIGINT back to Python's handler
with :func:`release` as soon as it can catch KeyboardInterrupt itself. A library user's
process is left alone, as is a SIGINT that was ignored (a shell's background job).
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


def release() -> None:
    """Gives SIGINT back to Python's KeyboardInterrupt (once ``main`` can catch it)."""
    if signal.getsignal(signal.SIGINT) is _interrupted_at_startup:
        signal.signal(signal.SIGINT, signal.default_int_handler)


guard()
