#!/usr/bin/env bash
# One command for the real-network numbers in docs/performance.md: the drivers' timer
# accuracy, the UDP driver's loopback ceiling (per transport) and the TUN emulator's
# accuracy (rate from 1 to 500 Mbit/s, one-way delay error, where it stops keeping up).
#
#   sudo bash scripts/measure_net.sh [OUT.md]        # default: results/net-measure-<UTC>.md
#
# Wall-clock numbers: run it on a quiet machine (the report starts with the load average
# and the CPUs, so a loaded run is recognisable). The emulator part needs root and
# /dev/net/tun; without them it is skipped with the reason. Takes about 5 minutes.
# Knobs: TCPLAB_MEASURE_REPEAT (loopback repeats, default 3), TCPLAB_MEASURE_SECS
# (seconds per emulator probe run, default 2), TCPLAB_MEASURE_RATES (Mbit/s list).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-results/net-measure-$(date -u +%Y%m%dT%H%M%SZ).md}"
mkdir -p "$(dirname "$out")"
repeat="${TCPLAB_MEASURE_REPEAT:-3}"
secs="${TCPLAB_MEASURE_SECS:-2}"
rates="${TCPLAB_MEASURE_RATES:-1 2 5 10 20 50 100 150 200 300 400 500}"

cargo build -q --release -p tcplab-net --examples
bin=target/release/examples

{
  echo "# tcplab real-network measurements"
  echo
  echo "- when: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(uname -srm); CPUs: $(nproc)"
  echo "- load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- command: \`sudo bash scripts/measure_net.sh\` (commit $(git rev-parse --short HEAD))"
  echo
  echo "## Timer accuracy (timerfd + epoll wake-up lateness)"
  echo
  echo "Normal priority:"
  echo
  "$bin/timer_accuracy" 2000
  echo
  echo "SCHED_FIFO (--rt):"
  echo
  "$bin/timer_accuracy" 2000 --rt
  echo
  echo "## UDP driver loopback ceiling"
  echo
  echo "One transfer between two threads over 127.0.0.1, every payload byte generated and"
  echo "checked; per core = bits delivered / (user + system CPU of both sides)."
  echo
  for i in $(seq "$repeat"); do
    echo "- $("$bin/udp_loopback" 'cc = "cubic"\nbytes = "300MB"\nrecovery = "sack"')"
  done
  for i in $(seq "$repeat"); do
    echo "- $("$bin/udp_loopback" 'cc = "cubic"\nbytes = "500MB"\nrecovery = "sack"\nmtu = 9000')"
  done
  echo "- $("$bin/udp_loopback" 'transport = "tack"\nbytes = "300MB"')"
  echo "- $("$bin/udp_loopback" 'transport = "tcp-nc"\ncc = "cubic"\nbytes = "100MB"')"
  echo "- $("$bin/udp_loopback" 'transport = "tcp-forward"\nbytes = "50MB"')"
  echo
  echo "## TUN emulator accuracy"
  echo
  if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ]; then
    echo "skipped: needs root and /dev/net/tun (run with sudo)"
  else
    # shellcheck disable=SC2086
    "$bin/emu_accuracy" "$secs" $rates
  fi
  echo
  echo "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out"
echo "wrote $out" >&2
