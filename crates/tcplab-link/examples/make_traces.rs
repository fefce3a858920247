//! Writes the bundled Mahimahi traces to `examples/traces/` (run from the repository root:
//! `cargo run -p tcplab-link --example make_traces`).

fn main() -> std::io::Result<()> {
    std::fs::create_dir_all("examples/traces")?;
    for (name, t) in tcplab_link::example_traces() {
        let path = format!("examples/traces/{name}");
        std::fs::write(&path, t.to_text())?;
        println!(
            "{path}: {} opportunities, period {}, mean {:.2} Mbit/s",
            t.timestamps().len(),
            t.period(),
            t.mean_rate_bps() / 1e6
        );
    }
    Ok(())
}
