//! Stop-and-wait's settings.

use crate::cc::CcParams;
use crate::param_error::ParamError;
use tcplab_core::Dur;

/// A stop-and-wait flow's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct StopWaitSpec {
    /// How long the source waits for an acknowledgement before sending again.
    pub timeout: Dur,
    /// Payload bytes per packet.
    pub payload: u32,
    /// Bytes to deliver (the flow's `bytes`, a multiple of `payload`).
    pub bytes: u64,
}

impl StopWaitSpec {
    /// Reads `params = { timeout_ms = …, payload = … }` (defaults 100 ms, 1000 bytes).
    pub fn from_params(params: &mut CcParams, bytes: Option<u64>) -> Result<Self, ParamError> {
        let invalid = |key: &'static str| move |why: String| ParamError::Invalid { key, why };
        let timeout_ms = params
            .take("timeout_ms", 100.0, |x| x > 0.0, "> 0")
            .map_err(invalid("timeout_ms"))?;
        let payload = params
            .take(
                "payload",
                1000.0,
                |x| (1.0..=65_000.0).contains(&x) && x.fract() == 0.0,
                "a whole number of bytes in 1..=65000",
            )
            .map_err(invalid("payload"))? as u32;
        let bytes = bytes.ok_or_else(|| {
            ParamError::Bytes("stop-and-wait needs a byte count, not \"unlimited\"".into())
        })?;
        if bytes % u64::from(payload) != 0 {
            return Err(ParamError::Bytes(format!(
                "must be a multiple of the payload ({payload} bytes)"
            )));
        }
        Ok(StopWaitSpec {
            timeout: Dur::from_secs_f64(timeout_ms / 1000.0),
            payload,
            bytes,
        })
    }
}
