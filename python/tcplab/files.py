"""Reading input files and placing output files, with one clear error for each way it fails.

Scenario and plan files must be regular UTF-8 text files of at most 16 MiB (a byte order
mark is accepted and dropped, as the Rust parser does); output files must stay inside the
output directory.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from tcplab import _tcplab

#: Largest scenario or plan file read (a device or a wrong file must not fill memory).
MAX_TEXT_BYTES = 16 << 20


def read_text(path: str | Path) -> str:
    """The text of a scenario or plan file, or a `ScenarioError` naming the file and why."""
    f = str(path)

    def fail(why: str) -> Exception:
        return _tcplab.ScenarioError(f"{f}: {why}")

    try:
        if not stat.S_ISREG(os.stat(f).st_mode):  # before open: a FIFO would block
            raise fail("not a regular file")
        with open(f, "rb") as fh:
            data = fh.read(MAX_TEXT_BYTES + 1)
    except OSError as e:
        raise fail(f"cannot read the file: {e.strerror or e}") from None
    if len(data) > MAX_TEXT_BYTES:
        raise fail(f"larger than {MAX_TEXT_BYTES >> 20} MiB: not a scenario or plan file")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise fail(f"not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
                   "save it as UTF-8") from None
    if "\x00" in text:
        raise fail(f"contains a NUL byte at offset {text.index(chr(0))}: not a text file")
    return text


def inside(out_dir: str | Path, name: str) -> Path:
    """``out_dir / name``, refusing a name that would leave `out_dir`."""
    if not name or "\x00" in name or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(f"output file name {name!r} must stay inside {out_dir} "
                         "(no '/', '\\', NUL, '.' or '..')")
    return Path(out_dir) / name


def check_out_dir(path: str | Path) -> Path:
    """Creates `path` if needed and proves a file can be written there; else ValueError."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{p}: not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=p, prefix=".tcplab-write-test-"):
            pass
    except OSError as e:
        raise ValueError(f"{p}: cannot write there ({e.strerror or e})") from None
    return p
