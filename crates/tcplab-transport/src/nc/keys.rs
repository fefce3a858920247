//! TCP/NC's flow keys (`transport = "tcp-nc"`): TCP's keys (`tcp/keys.rs`) plus `coding`.

use super::{NcParams, NcSpec};
use crate::coded::keys::{coding, mss};
use crate::coded::{NC_FRAMING_BYTES, NC_HEADER_BYTES, NC_IP_TCP_BYTES};
use crate::tcp;
use crate::RecoveryMode;
use tcplab_core::{KeyError, Keys};

pub(super) fn nc_spec(f: &Keys<'_>, bytes: Option<u64>) -> Result<NcSpec, KeyError> {
    // The receiver is the coding layer: TCP's receiver keys would be ignored.
    for k in ["ack", "ack_every", "ack_delay", "sack", "rcv_buf"] {
        if let Some(v) = f.table.get(k) {
            return Err(f.err(
                k,
                Some(v),
                "not used by tcp-nc: its receiver is the coding layer, which ACKs every \
                 innovative combination (coding.ack_redundant) and advertises coding.buffer",
            ));
        }
    }
    let explicit_recovery = f.table.contains_key("recovery");
    if let Some(v @ toml::Value::Boolean(true)) = f.table.get("handshake") {
        return Err(f.err(
            "handshake",
            Some(v),
            "tcp-nc has no handshake: its coding layer answers no SYN",
        ));
    }
    let mut spec = tcp::tcp_spec(f, bytes, None)?;
    spec.sender.handshake = false;
    spec.sender.mss = mss(f, NC_IP_TCP_BYTES + NC_HEADER_BYTES + NC_FRAMING_BYTES)?;
    spec.receiver.mss = spec.sender.mss;
    if spec.sender.recovery == RecoveryMode::Sack {
        if explicit_recovery {
            return Err(f.err(
                "recovery",
                f.table.get("recovery"),
                "tcp-nc's ACKs carry no SACK blocks: use \"reno\" or \"newreno\"",
            ));
        }
        spec.sender.recovery = RecoveryMode::NewReno;
    }
    let coding = coding(f, "tcp-nc", NcParams::from_params)?;
    Ok(NcSpec { tcp: spec, coding })
}
