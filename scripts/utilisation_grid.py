"""Link utilisation of one flow on a lossless 100 Mbit/s link, over delay x queue x size.

Prints a Markdown table (goodput as % of 100 Mbit/s x 1460/1500, RTOs, fast retransmits);
docs/validation.md quotes its output.
"""

import tcplab

BASE = {
    "sample": "off",
    "link": {"rate": "100Mbps", "delay": "1ms", "queue": "100pkt"},
    # tcplab's own defaults (MSS 1460, 1 s minimum RTO), as docs/validation.md quotes it.
    "flow": [{"bytes": "10MiB", "recovery": "newreno", "stack": "tcplab"}],
}


def main() -> None:
    base = tcplab.Scenario(BASE, source="utilisation_grid.py")
    print("| recovery | delay | queue | size | goodput % | RTOs | fast retx |")
    print("|---|---|---|---|---|---|---|")
    for rec in ["newreno", "sack"]:
        for delay in ["1ms", "5ms", "10ms"]:
            for queue in ["50pkt", "100pkt", "300pkt"]:
                for size in ["10MiB", "100MiB"]:
                    sc = base.with_values(**{
                        "link.delay": delay, "link.queue": queue,
                        "flow.0.bytes": size, "flow.0.recovery": rec,
                    })
                    f = tcplab.simulate(sc, seed=1).flows.iloc[0]
                    pct = f.goodput_bps / (100e6 * 1460 / 1500) * 100
                    print(f"| {rec} | {delay} | {queue} | {size} | {pct:.1f} | {f.rtos} "
                          f"| {f.fast_retransmits} |")


if __name__ == "__main__":
    main()
