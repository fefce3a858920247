//! Every built-in transport's endpoints publish exactly the columns of their typed
//! summaries, in order, so a column's name is written once (in the summary struct).

use tcplab_core::metrics::Collected;
use tcplab_core::Metrics;
use tcplab_core::{Dur, Rng};
use tcplab_transport::cc::CcParams;
use tcplab_transport::coded::{CodedSinkSummary, DecodeStats, PayloadPorts};
use tcplab_transport::datagram::{DatagramSpec, DatagramSummary, Pattern};
use tcplab_transport::forward::{ForwardParams, ForwardSourceSummary, ForwardSpec};
use tcplab_transport::nc::{NcParams, NcSourceSummary, NcSpec};
use tcplab_transport::stopwait::{StopWaitSpec, StopWaitSummary};
use tcplab_transport::tack::{TackConfig, TackReceiverSummary, TackSenderSummary, TackSpec};
use tcplab_transport::tcp::{ReceiverConfig, SenderConfig};
use tcplab_transport::{Endpoint, FlowContext, FlowEndpoints, TcpSpec, TcpSummary, TransportSpec};

fn keys(publish: impl Fn(&mut dyn Metrics)) -> Vec<&'static str> {
    let mut c = Collected::default();
    publish(&mut c);
    c.values.iter().map(|(k, _)| *k).collect()
}

/// `spec`'s two ends for a 100 kB flow.
fn built(spec: &TransportSpec) -> FlowEndpoints {
    spec.build(FlowContext {
        flow: 0,
        bytes: Some(100_000),
        source_rng: Rng::named(1, "source"),
        sink_rng: Rng::named(1, "sink"),
        payload: PayloadPorts::default(),
    })
    .unwrap()
}

/// The summary columns of `spec`'s source and sink.
fn published(spec: &TransportSpec) -> (Vec<&'static str>, Vec<&'static str>) {
    let ends = built(spec);
    (
        keys(|out| ends.source.summary(out)),
        keys(|out| ends.sink.summary(out)),
    )
}

fn tcp() -> TcpSpec {
    TcpSpec {
        cc: "newreno".into(),
        cc_params: CcParams::default(),
        sender: SenderConfig::default(),
        receiver: ReceiverConfig::default(),
        stack: None,
    }
}

fn concat(a: Vec<&'static str>, b: Vec<&'static str>) -> Vec<&'static str> {
    a.into_iter().chain(b).collect()
}

#[test]
fn each_end_publishes_its_summary_struct() {
    let decode = DecodeStats::default();
    let tcp_cols = keys(|out| TcpSummary::default().publish(out));

    let (src, sink) = published(&TransportSpec::Tack(TackSpec {
        cc: "bbr".into(),
        cc_params: CcParams::default(),
        cfg: TackConfig::default(),
    }));
    assert_eq!(src, keys(|out| TackSenderSummary::default().publish(out)));
    assert_eq!(
        sink,
        keys(|out| TackReceiverSummary::default().publish(out))
    );

    let (src, sink) = published(&TransportSpec::Datagram(DatagramSpec {
        pattern: Pattern::Cbr {
            rate_bps: 1_000_000,
        },
        payload: 1000,
    }));
    assert!(src.is_empty());
    assert_eq!(sink, keys(|out| DatagramSummary::default().publish(out)));

    let (src, sink) = published(&TransportSpec::TcpNc(Box::new(NcSpec {
        tcp: tcp(),
        coding: NcParams::default(),
    })));
    let nc = keys(|out| NcSourceSummary::default().publish(out));
    assert_eq!(src, concat(tcp_cols.clone(), nc));
    let nc_sink = CodedSinkSummary {
        acks_sent: 0,
        symbols_received: 0,
        innovative_symbols: Some(0),
        redundant_symbols: 0,
        decode: &decode,
        decode_busy_s: 0.0,
    };
    assert_eq!(sink, keys(|out| nc_sink.publish(out)));

    let (src, sink) = published(&TransportSpec::Forward(Box::new(ForwardSpec {
        cc: "vegas".into(),
        cc_params: CcParams::default(),
        mss: 1000,
        initial_cwnd: 2,
        coding: ForwardParams::default(),
    })));
    assert_eq!(
        src,
        keys(|out| ForwardSourceSummary::default().publish(out))
    );
    let fwd_sink = CodedSinkSummary {
        acks_sent: 0,
        symbols_received: 0,
        innovative_symbols: None,
        redundant_symbols: 0,
        decode: &decode,
        decode_busy_s: 0.0,
    };
    assert_eq!(sink, keys(|out| fwd_sink.publish(out)));

    let (src, sink) = published(&TransportSpec::StopWait(StopWaitSpec {
        timeout: Dur::from_millis(100),
        payload: 1000,
        bytes: 100_000,
    }));
    assert_eq!(src, keys(|out| StopWaitSummary::default().publish(out)));
    assert!(sink.is_empty());

    let (src, _) = published(&TransportSpec::Tcp(tcp()));
    assert_eq!(src, tcp_cols);
}

/// The columns each built-in's ends publish (summaries, then samples) are the ones its
/// `Transport` declares, in order: the results reference lists what a row holds.
#[test]
fn each_builtin_declares_the_columns_its_ends_publish() {
    let specs = [
        TransportSpec::Tcp(tcp()),
        TransportSpec::Tack(TackSpec {
            cc: "bbr".into(),
            cc_params: CcParams::default(),
            cfg: TackConfig::default(),
        }),
        TransportSpec::Datagram(DatagramSpec {
            pattern: Pattern::Cbr {
                rate_bps: 1_000_000,
            },
            payload: 1000,
        }),
        TransportSpec::TcpNc(Box::new(NcSpec {
            tcp: tcp(),
            coding: NcParams::default(),
        })),
        TransportSpec::Forward(Box::new(ForwardSpec {
            cc: "vegas".into(),
            cc_params: CcParams::default(),
            mss: 1000,
            initial_cwnd: 2,
            coding: ForwardParams::default(),
        })),
        TransportSpec::StopWait(StopWaitSpec {
            timeout: Dur::from_millis(100),
            payload: 1000,
            bytes: 100_000,
        }),
    ];
    let declared = tcplab_transport::transport::builtin_columns();
    assert_eq!(declared.len(), specs.len(), "one spec per built-in here");
    for spec in &specs {
        let (name, flows, series) = declared.iter().find(|(n, ..)| *n == spec.name()).unwrap();
        let names = |c: &[tcplab_core::ColumnDef]| c.iter().map(|c| c.name).collect::<Vec<_>>();
        let (src, sink) = published(spec);
        assert_eq!(concat(src, sink), names(flows), "{name}: flows");
        let ends = built(spec);
        let sampled = concat(
            keys(|out| ends.source.sample(out)),
            keys(|out| ends.sink.sample(out)),
        );
        assert_eq!(sampled, names(series), "{name}: flow_series");
    }
}
