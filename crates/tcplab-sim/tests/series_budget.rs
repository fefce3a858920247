//! Series memory stays flat in simulated time: past `series_rows` the series are thinned
//! to every n-th sample (evenly over the whole run), and the run info says so.

use tcplab_sim::{parse_scenario_str, simulate};

fn run(duration: &str, rows: &str) -> tcplab_sim::Results {
    let sc = parse_scenario_str(
        &format!(
            "duration = \"{duration}\"\n{rows}\n[link]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
             [[flow]]\nbytes = \"unlimited\"\ncount = 4\n"
        ),
        "budget.toml",
    )
    .unwrap();
    simulate(&sc, 1, 0).unwrap()
}

#[test]
fn long_runs_keep_the_series_within_the_budget() {
    // 4 flows sampled every 10 ms: 400 rows per simulated second.
    let short = run("10s", "series_rows = 5000");
    assert_eq!(short.info.series_stride, 1);
    assert_eq!(short.flow_series.rows(), 4 * 1001 + 4);
    let long = run("100s", "series_rows = 5000");
    assert!(
        long.flow_series.rows() <= 5000,
        "{}",
        long.flow_series.rows()
    );
    assert!(long.link_series.rows() <= 5000);
    assert_eq!(long.info.series_stride, 16);
    // Evenly spaced samples over the whole run, 160 ms apart, and the last one at the end.
    let t = long.flow_series.floats("t_s").unwrap();
    assert_eq!(t[0], 0.0);
    assert!((t[4] - 0.16).abs() < 1e-9, "{}", t[4]);
    assert_eq!(*t.last().unwrap(), 100.0);
    // The kept rows are exactly the unthinned run's rows at those instants.
    let full = run("100s", "series_rows = 100000");
    assert_eq!(full.info.series_stride, 1);
    let (ft, fd) = (
        full.flow_series.floats("t_s").unwrap(),
        full.flow_series.ints("delivered").unwrap(),
    );
    let d = long.flow_series.ints("delivered").unwrap();
    for (i, (&ti, &di)) in t.iter().zip(d).enumerate().step_by(97) {
        let j = ft.iter().position(|&x| x == ti).unwrap() + i % 4;
        assert_eq!(fd[j], di, "row {i} at t={ti}");
    }
    // Flows tables do not depend on the series budget.
    assert_eq!(long.flows, full.flows);
}

#[test]
fn a_budget_below_the_minimum_is_refused() {
    let e = parse_scenario_str(
        "series_rows = 10\n[link]\nrate = \"10Mbps\"\n[[flow]]\nbytes = \"1MB\"\n",
        "b.toml",
    )
    .unwrap_err();
    assert!(e.to_string().contains("series_rows"), "{e}");
}
