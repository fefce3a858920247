#!/usr/bin/env bash
# htsim (C++, github.com/Broadcom/csg-htsim) against tcplab on B2's dumbbell, one command.
#
# Usage: scripts/htsim_side_by_side.sh HTSIM_SIM_DIR [FLOWS...]     (default 10 100 1000 10000)
#   HTSIM_SIM_DIR  a writable copy of htsim's sim/ folder (built here if libhtsim.a is absent)
#   HTSIM_DUMBBELL the B2-like htsim main (default /work/shared/bench/htsim_dumbbell.cpp;
#                  a patched copy of htsim's tests/main_dumbell_tcp.cpp, kept out of this repo)
#   HTSIM_COMMIT   the htsim commit to print, when HTSIM_SIM_DIR is a copy outside git
#   CALLGRIND=1    also count instructions of both (valgrind; slow, but load-independent)
#
# Per flow count, best of 3: htsim's whole process (wall, CPU = user + system, peak RSS) and
# tcplab's whole `tcplab.simulate` call in a fresh Python process (wall, CPU time of the
# call, the process's peak RSS, and the
# simulation's own share of it: peak RSS minus that of a process that parsed the scenario
# and ran it with one flow for 1 ms, so loading the result-table libraries is not counted).
# tcplab must be importable (pip install -e . in this repository). Prints a
# Markdown table at the end, then each flow count's wall time over the previous one's for
# both simulators (issue 15's scaling target); the load average is printed too, since wall times on a shared
# machine are not comparable across runs (CPU time suffers less from other processes).
set -euo pipefail
sim=$(cd "${1:?usage: $0 HTSIM_SIM_DIR [FLOWS...]}" && pwd); shift
flows=${*:-10 100 1000 10000}
cpp=${HTSIM_DUMBBELL:-/work/shared/bench/htsim_dumbbell.cpp}
[ -f "$cpp" ] || { echo "$0: htsim dumbbell main $cpp not found (set HTSIM_DUMBBELL)" >&2; exit 2; }
( cd "$sim" && { [ -f libhtsim.a ] || make -j2 libhtsim.a >/dev/null; } )
g++ -O3 -std=c++11 -w -I"$sim" "$cpp" "$sim/libhtsim.a" -o "$sim/htsim_dumbbell"
commit=${HTSIM_COMMIT:-$(git -C "$sim" rev-parse --short HEAD 2>/dev/null \
  || echo "unknown (not a git tree; set HTSIM_COMMIT)")}
echo "htsim sim dir $sim, commit $commit; tcplab $(git -C "$(dirname "$0")" rev-parse --short HEAD)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), nproc $(nproc)"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/tcplab_run.py" <<'P'
import json, resource, sys, time, importlib.resources as ir, tcplab
n, mode = int(sys.argv[1]), sys.argv[2]
sc = tcplab.Scenario.from_toml(str(ir.files("tcplab") / "data" / "b2.toml")).with_values(
    **{"flow.0.count": n})
if mode == "run":
    t, c = time.perf_counter(), time.process_time()
    r = tcplab.simulate(sc, seed=1)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    mbps = r.flows.bytes_delivered.sum() * 8 / float(r.info["end_time_s"]) / 1e6
    out = {"wall": wall, "cpu": cpu, "events": r.info["events"], "mbps": mbps}
else:  # the baseline: everything a run loads (tables, pandas), with a run of 1 ms
    r = tcplab.simulate(sc.with_values(**{"flow.0.count": 1, "duration": "1ms"}), seed=1)
    r.flows.bytes_delivered.sum()
    out = {}
out["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out))
P

rows=(); walls=()
for n in $flows; do
  hbest=999; hcpu=999; hkb=0
  for _ in 1 2 3; do
    /usr/bin/time -o "$tmp/time.txt" -f "%e %U %S %M" "$sim/htsim_dumbbell" -conns "$n" \
      >/dev/null 2>"$tmp/err.txt"
    read -r s u sy kb <"$tmp/time.txt"
    hbest=$(python3 -c "print(min($hbest, $s))"); hcpu=$(python3 -c "print(min($hcpu, $u + $sy))")
    hkb=$(( kb > hkb ? kb : hkb ))
  done
  hres=$(grep RESULT "$tmp/err.txt" | tr ' ' '\n' | grep -E 'goodput|events' | tr '\n' ' ')
  echo "htsim  flows=$n best=${hbest}s cpu=${hcpu}s peak=${hkb}KB $hres"
  base=$(python3 "$tmp/tcplab_run.py" "$n" parse | python3 -c "import json,sys; print(json.load(sys.stdin)['rss_kb'])")
  tbest=999; tcpu=999; tkb=0
  for _ in 1 2 3; do
    out=$(python3 "$tmp/tcplab_run.py" "$n" run)
    read -r s c kb < <(echo "$out" | python3 -c \
      "import json,sys; d=json.load(sys.stdin); print(d['wall'], d['cpu'], d['rss_kb'])")
    tbest=$(python3 -c "print(min($tbest, $s))"); tcpu=$(python3 -c "print(min($tcpu, $c))")
    tkb=$(( kb > tkb ? kb : tkb ))
  done
  echo "tcplab flows=$n best=$(printf %.3f "$tbest")s cpu=$(printf %.3f "$tcpu")s peak=${tkb}KB (baseline ${base}KB) $out"
  hi=""; ti=""
  if [ "${CALLGRIND:-0}" = 1 ]; then
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$sim/htsim_dumbbell" -conns "$n" \
      >/dev/null 2>"$tmp/cg.txt"
    hi=$(grep -o 'Collected : [0-9]*' "$tmp/cg.txt" | grep -o '[0-9]*')
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python3 "$tmp/tcplab_run.py" "$n" run \
      >/dev/null 2>"$tmp/cg.txt"
    ti=$(grep -o 'Collected : [0-9]*' "$tmp/cg.txt" | grep -o '[0-9]*')
    echo "instructions: htsim $hi, tcplab (whole python process) $ti"
  fi
  walls+=("$n $hbest $tbest")
  rows+=("$(python3 -c "
n,h,t,hc,tc,hk,tk,b='$n',$hbest,$tbest,$hcpu,$tcpu,$hkb,$tkb,$base
print(f'| {n} | {h:.2f} s | {t:.3f} s | {t/h:.2f} | {hc:.2f} s | {tc:.3f} s | {tc/hc:.2f} '
      f'| {hk/1024:.1f} MB | {tk/1024:.0f} MB process, {(tk-b)/1024:.1f} MB simulation |')
")")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| flows | htsim wall (process) | tcplab.simulate wall | ratio | htsim CPU | tcplab CPU | ratio | htsim peak RSS | tcplab peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
# Issue 15's scaling target: the wall time at each flow count against the previous one.
printf '%s\n' "${walls[@]}" | python3 -c "
import sys
rows = [l.split() for l in sys.stdin if l.strip()]
for (n0, h0, t0), (n1, h1, t1) in zip(rows, rows[1:]):
    print(f'{n1} vs {n0} flows: tcplab {float(t1) / float(t0):.2f}x, htsim {float(h1) / float(h0):.2f}x')
"
