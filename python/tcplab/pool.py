"""A pool of worker processes that outlives the runs it is given.

``concurrent.futures.ProcessPoolExecutor`` breaks for good when one worker dies (a run
that exhausts memory aborts its process), so every pending run is lost, and it cannot stop
a run that hangs. Here each worker runs one job at a time; a job whose worker dies, or that
overruns its time limit (the worker is then killed), comes back as a failure, and a fresh
worker takes the next job. Each worker caps its own address space (``RLIMIT_AS``) at its
size after start-up plus the memory limit, so a run that asks for too much fails in its
own process instead of pushing the machine into swap or the OOM killer.
"""

from __future__ import annotations

import faulthandler
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from tcplab._startup import interrupted

#: Longest sleep of the pool's loop (see :func:`tcplab._startup.interrupted`).
WAKE_S = 0.1

#: Seconds a worker gets past the time limit to stop by itself before it is killed (the
#: simulator honours the limit within milliseconds; this covers everything around it).
KILL_GRACE_S = 10.0


@dataclass
class Outcome:
    """What became of one job: its index in the input, and a value or an error message."""

    index: int
    value: Any = None
    error: str | None = None


def _address_space() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _worker(conn, fn: Callable[[Any], Any], memory_limit: int | None, stderr: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    # The parent reads what a dying run said (Rust's allocation error, a crash dump).
    sys.stderr = open(stderr, "a", buffering=1, encoding="utf-8", errors="replace")
    os.dup2(sys.stderr.fileno(), 2)
    if faulthandler.is_enabled():
        faulthandler.enable(file=sys.stderr)
    if memory_limit:
        import resource

        cap = _address_space() + memory_limit
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        index, arg = job
        try:
            out = Outcome(index, value=fn(arg))
        except MemoryError:
            out = Outcome(index, error="MemoryError: the run exceeded the memory limit")
        except Exception as e:  # noqa: BLE001 - every failure goes back to the parent
            out = Outcome(index, error=f"{type(e).__name__}: {e}")
        conn.send(out)


class _Slot:
    """One worker process and the job it is running."""

    def __init__(self, ctx, fn, memory_limit):
        self.conn, child = ctx.Pipe()
        fd, self.stderr = tempfile.mkstemp(prefix="tcplab-worker-", suffix=".err")
        os.close(fd)
        self.proc = ctx.Process(target=_worker, args=(child, fn, memory_limit, self.stderr),
                                daemon=True)
        self.proc.start()
        child.close()
        self.job: int | None = None
        self.deadline = float("inf")
        self.said = 0  # bytes of stderr already passed on

    def news(self) -> str:
        """What the worker wrote to stderr since last asked."""
        with open(self.stderr, "rb") as f:
            f.seek(self.said)
            data = f.read()
        self.said += len(data)
        return data.decode("utf-8", "replace")

    def give(self, index: int, arg: Any, time_limit: float | None, grace: float) -> None:
        self.job = index
        self.deadline = time.monotonic() + (time_limit + grace if time_limit
                                            else float("inf"))
        self.conn.send((index, arg))

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()
        if os.path.exists(self.stderr):
            sys.stderr.write(self.news())
            os.unlink(self.stderr)


def _death(code: int | None, memory_limit: int | None, said: str) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
    else:
        name = f"exit code {code}"
    first = next((ln.strip() for ln in said.splitlines() if ln.strip()), "")
    if first:
        name += f": {first[:200]}"
    why = (f"; most likely it ran out of memory (limit {memory_limit / 2**30:.1f} GiB)"
           if memory_limit and code in (-signal.SIGABRT, -signal.SIGKILL, -signal.SIGSEGV)
           else "")
    return f"WorkerDied: the worker process running this run ended ({name}){why}"


def run_supervised(fn: Callable[[Any], Any], args: Iterable[Any], workers: int,
                   time_limit: float | None = None, memory_limit: int | None = None,
                   grace: float = KILL_GRACE_S) -> Iterator[Outcome]:
    """Runs ``fn(arg)`` for every arg on `workers` processes; yields outcomes as they finish.

    `fn` must be picklable (a module-level function). A job whose worker dies or that runs
    longer than `time_limit` + `grace` seconds yields an `Outcome` with an error.
    """
    ctx = mp.get_context()
    todo = deque(enumerate(args))
    slots: list[_Slot] = []
    finished = False
    try:
        while todo or any(s.job is not None for s in slots):
            while todo and len(slots) < workers:
                slots.append(_Slot(ctx, fn, memory_limit))
            for s in slots:
                if s.job is None and todo:
                    s.give(*todo.popleft(), time_limit, grace)
            busy = [s for s in slots if s.job is not None]
            timeout = max(0.0, min(s.deadline for s in busy) - time.monotonic())
            # Never long asleep: a Ctrl-C whose KeyboardInterrupt was lost in a finaliser,
            # or whose signal woke another thread, is raised here within WAKE_S.
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy],
                         timeout=min(timeout, WAKE_S))
            if interrupted():
                raise KeyboardInterrupt
            for s in busy:
                if s.conn in ready:
                    try:
                        out = s.conn.recv()
                    except (EOFError, OSError):
                        out = None
                    if out is not None:
                        s.job, s.deadline = None, float("inf")
                        sys.stderr.write(s.news())  # warnings of a run that went well
                        yield out
                        continue
                    s.proc.join(timeout=5)  # the pipe closed: the worker is exiting
                died = s.proc.sentinel in ready or not s.proc.is_alive()
                if died or s.deadline <= time.monotonic():
                    overdue = not died
                    if overdue:
                        s.proc.kill()
                    s.proc.join()
                    said = s.news()
                    s.kill()
                    err = (f"TimeoutError: the run exceeded its time limit of {time_limit} s "
                           f"and its worker was stopped" if overdue
                           else _death(s.proc.exitcode, memory_limit, said))
                    slots.remove(s)
                    yield Outcome(s.job, error=err)
        finished = True
    finally:
        if not finished:
            # Ctrl-C or an error in the caller: runs in progress are abandoned, at once
            # (a worker busy with a run would read the stop message only after it).
            for s in slots:
                s.proc.kill()
        for s in slots:
            try:
                s.conn.send(None)
            except OSError:
                pass
        for s in slots:
            s.proc.join(timeout=5)
            s.kill()
