fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").unwrap();
    s.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 4096
}
#[test]
fn scratch() {
    for t in [
        "transport = \"tcp-forward\"\nbytes = \"90GB\"",
        "transport = \"tcp-nc\"\nbytes = \"90GB\"",
        "transport = \"tack\"\nbytes = \"90GB\"\nrcv_buf = \"90GB\"",
        "transport = \"datagram\"\nbytes = \"90GB\"\nrate = \"10Gbps\"",
        "transport = \"tcp\"\nbytes = \"90GB\"",
        "transport = \"tcp-nc\"\nbytes = \"unlimited\"\nstop = \"1s\"",
    ] {
        let table: toml::Table = t.parse().unwrap();
        let before = rss();
        let r = tcplab_net::udp::flow_spec(&table, "x")
            .map_err(|e| e.to_string())
            .and_then(|f| tcplab_net::udp::flow_endpoints::build(&f, 7).map(|(_, e)| e));
        let after = rss();
        println!(
            "{t:?}: ok={} rss +{} MB",
            r.is_ok(),
            (after as i64 - before as i64) / 1_000_000
        );
        if let Err(e) = &r {
            println!("  {e}");
        }
        drop(r);
    }
}
