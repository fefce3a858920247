//! One `[[flow]]` table read on its own, as the UDP driver reads it: no link, no
//! duration, no topology around it, and errors that name the flow's own keys.

use tcplab_scenario::{parse_flow_table, parse_scenario_str};
use tcplab_transport::TransportSpec;

fn table(text: &str) -> toml::Table {
    text.parse().unwrap()
}

#[test]
fn a_flow_parses_without_a_scenario_around_it() {
    // No [link] and no duration: a scenario would refuse both, a single flow needs neither.
    let f = parse_flow_table(
        &table("bytes = \"unlimited\"\ncc = \"cubic\"\nmss = 1200"),
        "x",
    )
    .unwrap();
    assert_eq!(f.bytes, None);
    assert_eq!(f.name, "flow0");
    let TransportSpec::Tcp(t) = &f.transport else {
        panic!("tcp is the default transport")
    };
    assert_eq!((t.cc.as_str(), t.sender.mss), ("cubic", 1200));
}

#[test]
fn a_flow_parses_as_it_does_inside_a_scenario() {
    let flow = "transport = \"tack\"\nbytes = \"1MB\"\nname = \"t\"\nstart = \"2s\"";
    let alone = parse_flow_table(&table(flow), "x").unwrap();
    let sc = parse_scenario_str(
        &format!("[link]\nrate = \"10Mbps\"\n[[flow]]\n{flow}\n"),
        "x",
    )
    .unwrap();
    let inside = &sc.flows[0];
    assert_eq!(
        format!("{:?}", alone.transport),
        format!("{:?}", inside.transport)
    );
    assert_eq!(
        (&alone.name, alone.bytes, alone.start, alone.stop),
        (&inside.name, inside.bytes, inside.start, inside.stop)
    );
    // Only the topology fills in the nodes and the route.
    assert!(alone.path.is_empty());
}

#[test]
fn errors_name_the_flow_key() {
    let e = parse_flow_table(&table("bytes = \"1MB\"\ncc = \"nope\""), "hello.toml").unwrap_err();
    assert_eq!((e.file.as_str(), e.key.as_str()), ("hello.toml", "flow.cc"));
    // Topology keys belong to a scenario, not to one flow.
    let e = parse_flow_table(&table("bytes = \"1MB\"\nfrom = \"a\""), "x").unwrap_err();
    assert_eq!(e.key, "flow.from");
    assert!(e.why.starts_with("unknown key"), "{e}");
}

/// A registered transport whose factory refuses every parameter table.
fn refusing(
    _: &mut tcplab_transport::cc::CcParams,
    _: tcplab_transport::FlowContext,
) -> Result<tcplab_transport::transport::UserEndpoints, String> {
    Err("parameter 'x' is not understood".into())
}

#[test]
fn a_registered_transport_blames_the_name_or_its_params() {
    let e = parse_flow_table(&table("bytes = \"1MB\"\ntransport = \"nope\""), "x").unwrap_err();
    assert_eq!(e.key, "flow.transport");
    assert!(e.why.starts_with("unknown transport 'nope'"), "{e}");
    tcplab_transport::transport::register(
        "refusing",
        tcplab_transport::transport::Registration::new(refusing),
    )
    .unwrap();
    let e = parse_flow_table(
        &table("bytes = \"1MB\"\ntransport = \"refusing\"\nparams = { x = 1 }"),
        "x",
    )
    .unwrap_err();
    assert_eq!(e.key, "flow.params");
    assert_eq!(e.why, "parameter 'x' is not understood");
}

/// The other half: a network without flows, as the link emulator reads it (the traffic
/// is the program it runs), with no placeholder flow made up for the parser.
#[test]
fn a_network_parses_without_flows() {
    let t = table("[link]\nrate = \"10Mbps\"\ndelay = \"5ms\"\nqueue = \"3000B\"");
    let sc = tcplab_scenario::parse_network_table(&t, "emu.toml").unwrap();
    assert!(sc.flows.is_empty());
    assert_eq!(sc.links[0].fwd.rate_bps, 10_000_000);
    let e = tcplab_scenario::parse_scenario_table(&t, "emu.toml").unwrap_err();
    assert_eq!(e.key, "flow");
}
