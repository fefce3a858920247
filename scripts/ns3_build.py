"""Shared by the ns-3 side-by-side scripts: compiling a generated ns-3 program against an
installed ns-3, and reading `--set key=value` values."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

#: The modules a wired (point-to-point) program links.
WIRED_MODULES = ["applications", "internet", "point-to-point", "traffic-control", "network",
                 "bridge", "stats", "core"]


#: The C++ helper both generated programs use: a point-to-point link with a drop-tail
#: device queue of `queue` packets. Spliced in where a program says `// @P2P_CONNECT@`.
P2P_CONNECT = r"""static NetDeviceContainer
Connect(Ptr<Node> a, Ptr<Node> b, std::string rate, std::string delay, uint32_t queue)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queue)));
    return p2p.Install(a, b);
}
"""


def compile_against(prefix: Path, out: Path, name: str, program: str, modules: list[str],
                    who: str) -> Path:
    """Compiles `program` against the installed ns-3 under `prefix` (`prefix`/include/ns3
    and `prefix`/lib or lib64 with libns3.X-*.so, as `./ns3 install` or the `ns3` Python
    wheel leave it) into `out`/`name`, only when the program changed; returns the binary.
    `who` names the calling script in errors."""
    libs = sorted(prefix.glob("lib*/libns3*-core*.so"))
    if not libs:
        raise SystemExit(f"{who}: no libns3*-core*.so under {prefix}/lib* "
                         "(pip install ns3==3.44, then pass .../site-packages/ns3)")
    libdir = libs[0].parent
    tag = re.match(r"libns3(\.[\d.]+)?-core(.*)\.so", libs[0].name)
    ver, suffix = tag.group(1) or "", tag.group(2)
    out.mkdir(parents=True, exist_ok=True)
    src, binary = out / f"{name}.cc", out / name
    if binary.exists() and src.exists() and src.read_text() == program:
        return binary
    src.write_text(program)
    cmd = ["g++", "-std=c++20", "-O2", f"-I{prefix / 'include'}", str(src), f"-L{libdir}",
           *[f"-lns3{ver}-{m}{suffix}" for m in modules], f"-Wl,-rpath,{libdir}",
           "-o", str(binary)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{who}: {' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    return binary


def parse_value(text: str):
    """A `--set` value as TOML would read it: int, float, bool, else the string."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)
