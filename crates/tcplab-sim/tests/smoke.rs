use tcplab_sim::{parse_scenario_file, simulate};

#[test]
fn bundled_example_runs() {
    let sc = parse_scenario_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/newreno-lossy.toml"
    ))
    .unwrap();
    let r = simulate(&sc, 1, 0).unwrap();
    eprintln!("{:?}", r.info);
    eprintln!("{:#?}", r.flows);
    assert!(r.flows.bools("completed").unwrap()[0]);
}
