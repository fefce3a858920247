//! Each built-in transport reads its own `[[flow]]` keys in its folder, through
//! `Transport::parse`, reached by name from the one list in `builtin.rs`; a refused key
//! is a typed error naming the file, the key, the value and why.

use tcplab_core::{KeyError, Keys};
use tcplab_transport::stopwait::StopWait;
use tcplab_transport::tcp::TcpTransport;
use tcplab_transport::transport::BUILTIN;
use tcplab_transport::{FlowKeys, Transport, TransportSpec};
use toml::Table;

/// `text` read as flow 0 of file `f.toml` by transport `name` (1 MB, or unlimited).
fn parse(
    name: &str,
    text: &str,
    bytes: Option<u64>,
    stack: Option<&str>,
) -> (
    Option<Result<TransportSpec, KeyError>>,
    Result<(), KeyError>,
) {
    let table: Table = text.parse().unwrap();
    let keys = Keys::new("f.toml", "flow[0]".into(), &table);
    let flow = FlowKeys {
        keys: &keys,
        bytes,
        stack,
    };
    let spec = TransportSpec::parse_builtin(name, &flow);
    (spec, keys.finish())
}

/// The keys a built-in needs at least (a datagram flow has no default rate).
fn minimal(name: &str) -> &'static str {
    match name {
        "datagram" => "rate = \"1Mbps\"",
        _ => "",
    }
}

#[test]
fn every_builtin_is_reached_by_name_and_reads_its_keys() {
    assert!(BUILTIN.len() >= 6);
    for &name in BUILTIN {
        let (spec, rest) = parse(name, minimal(name), Some(1_000_000), None);
        let spec = spec.unwrap_or_else(|| panic!("{name}: not reached"));
        assert_eq!(spec.unwrap().name(), name);
        rest.unwrap();
        // A key no transport knows is left for the scenario parser to report.
        let text = format!("{}\nnot_a_key = 1", minimal(name));
        let (spec, rest) = parse(name, &text, Some(1_000_000), None);
        assert!(spec.unwrap().is_ok(), "{name}");
        match rest {
            Err(KeyError::Unknown {
                key, value, known, ..
            }) => {
                assert_eq!((key.as_str(), value.as_str()), ("flow[0].not_a_key", "1"));
                assert!(
                    !known.contains(&"not_a_key".to_string()),
                    "{name}: {known:?}"
                );
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    assert!(parse("nope", "", None, None).0.is_none());
}

#[test]
fn a_refused_key_names_file_key_value_and_why() {
    let refused =
        |name: &str, text: &str, bytes: Option<u64>| match parse(name, text, bytes, None).0 {
            Some(Err(e)) => e,
            other => panic!("{name} {text}: {other:?}"),
        };
    let value = |e: &KeyError| match e {
        KeyError::Value {
            file,
            key,
            value,
            why,
        } => (file.clone(), key.clone(), value.clone(), why.clone()),
        other => panic!("{other:?}"),
    };
    // A top-level key of TCP's (tcp/keys.rs) and one in stop-and-wait's `params`
    // (stopwait/spec.rs, read by the default `parse`): the same error, the same path.
    let (file, key, v, why) = value(&refused("tcp", "mss = 0", None));
    assert_eq!(
        (file.as_str(), key.as_str(), v.as_str()),
        ("f.toml", "flow[0].mss", "0")
    );
    assert!(why.contains("between 1 and"), "{why}");
    let (file, key, v, why) = value(&refused("stopwait", "params = { payload = 0 }", Some(1000)));
    assert_eq!(
        (file.as_str(), key.as_str(), v.as_str()),
        ("f.toml", "flow[0].params.payload", "0")
    );
    assert!(why.contains("1..=65000"), "{why}");
    // The controller's name and parameters, each against its own key.
    let (_, key, v, _) = value(&refused("tack", "cc = \"nope\"", None));
    assert_eq!((key.as_str(), v.as_str()), ("flow[0].cc", "\"nope\""));
    match refused("tcp-forward", "cc_params = { nope = 1 }", Some(1000)) {
        KeyError::Key { key, why, .. } => {
            assert_eq!(key, "flow[0].cc_params");
            assert!(why.contains("nope"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    // A key about the flow as a whole: TCP-Forward needs a byte count.
    let e = refused("tcp-forward", "", None);
    assert_eq!(e.key(), "flow[0].bytes");
    // A datagram flow without its required rate: the key, no value.
    assert!(
        matches!(refused("datagram", "", None), KeyError::Key { ref key, .. } if key == "flow[0].rate")
    );
    // The message reads as ConfigError's always did.
    assert_eq!(
        refused("tcp", "mss = 0", None).to_string(),
        "f.toml: flow[0].mss = 0: must be between 1 and 4294967295"
    );
}

#[test]
fn the_scenario_stack_is_the_profile_of_a_tcp_flow_that_names_none() {
    let tcp = |text: &str, stack: Option<&str>| match parse("tcp", text, None, stack).0 {
        Some(Ok(TransportSpec::Tcp(s))) => s,
        other => panic!("{other:?}"),
    };
    // No stack anywhere: Linux's profile (tcp/stack.rs's DEFAULT).
    assert_eq!(tcp("", None).stack.as_deref(), Some("linux"));
    // The scenario's stack, unless the flow names its own.
    let ns3 = tcp("", Some("ns3"));
    assert_eq!((ns3.stack.as_deref(), ns3.sender.mss), (Some("ns3"), 536));
    assert_eq!(
        tcp("stack = \"tcplab\"", Some("ns3")).stack.as_deref(),
        Some("tcplab")
    );
    // TCP/NC reads TCP's keys but keeps tcplab's defaults unless the flow names a stack.
    match parse("tcp-nc", "", None, Some("ns3")).0 {
        Some(Ok(TransportSpec::TcpNc(s))) => assert_eq!(s.tcp.stack, None),
        other => panic!("{other:?}"),
    }
    // The typed entry is the trait's own: a transport type is enough.
    let t: Table = "stack = \"bsd\"".parse().unwrap();
    let keys = Keys::new("f.toml", "flow[0]".into(), &t);
    let flow = FlowKeys {
        keys: &keys,
        bytes: None,
        stack: None,
    };
    let e = TcpTransport::parse(&flow).unwrap_err();
    assert_eq!(e.key(), "flow[0].stack");
    assert!(e.why().contains("unknown stack profile"), "{e}");
    let e = StopWait::parse(&flow).unwrap_err();
    assert_eq!(e.key(), "flow[0].bytes", "{e}");
}

#[test]
fn each_transport_says_how_large_its_packets_are() {
    let t = |text: &str| -> Table { text.parse().unwrap() };
    let largest = TransportSpec::largest_packet;
    // The datagram's payload plus its 28 bytes of IP and UDP headers; TCP's MTU.
    assert_eq!(largest("datagram", &t("packet_size = 8972")), 9000);
    assert_eq!(largest("datagram", &t("mtu = 9000")), 1500);
    assert_eq!(largest("tcp", &t("mtu = 9000")), 9000);
    assert_eq!(largest("tack", &t("packet_size = 8972")), 1500);
    // A registered (or unknown) transport: its `mtu`.
    assert_eq!(largest("mine", &t("mtu = 4000")), 4000);
    // A value the parser will refuse counts as the default.
    assert_eq!(largest("tcp", &t("mtu = -1")), 1500);
}
