//! TCP-Forward's flow keys (`transport = "tcp-forward"`): `cc`, `cc_params`,
//! `mss`/`mtu`, `initial_cwnd` and `coding`.

use super::{ForwardParams, ForwardSpec};
use crate::coded::keys::{coding, mss};
use crate::coded::{FORWARD_HEADER_BYTES, FORWARD_IP_UDP_BYTES};
use crate::flow_keys::{check_controller, number_params};
use tcplab_core::{KeyError, Keys};

pub(super) fn forward_spec(f: &Keys<'_>, bytes: Option<u64>) -> Result<ForwardSpec, KeyError> {
    if bytes.is_none() {
        return Err(f.err(
            "bytes",
            f.table.get("bytes"),
            "tcp-forward needs a byte count: its LT decoder works on an object of known length",
        ));
    }
    let cc_name = f.string("cc")?.unwrap_or("vegas").to_string();
    let cc_params = number_params(f, "cc_params")?;
    check_controller(f, &cc_name, &cc_params)?;
    let mss = mss(f, FORWARD_IP_UDP_BYTES + FORWARD_HEADER_BYTES)?;
    let initial_cwnd = f.uint("initial_cwnd", 1, 1 << 20)?.unwrap_or(10) as u32;
    let coding = coding(f, "tcp-forward", ForwardParams::from_params)?;
    Ok(ForwardSpec {
        cc: cc_name,
        cc_params,
        mss,
        initial_cwnd,
        coding,
    })
}
