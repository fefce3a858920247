//! Step marking: the queue DCTCP assumes (Alizadeh et al., SIGCOMM 2010, section 3.1;
//! RFC 8257 section 3.1): an arriving packet that takes the instantaneous queue above
//! `K` is marked Congestion Experienced if it is ECN-capable, else dropped (as RED with
//! `min_th = max_th = K` and an averaging weight of 1, the way DCTCP is configured on
//! ns-3's RedQueueDisc and Linux's sch_red). Below `K` nothing happens; the link's limit
//! still tail-drops.

use crate::queued::Verdict;
use crate::Packet;

/// The marking threshold K, in packets or bytes waiting (the arriving packet counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepThreshold {
    Packets(u64),
    Bytes(u64),
}

/// Step marking's parameters. K has no default: it depends on the link (RFC 8257
/// section 4.1 leaves it to the operator; the DCTCP paper derives K > C·RTT/7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepParams {
    pub k: StepThreshold,
}

/// The verdict for `pkt` arriving at a queue of `pkts` packets and `bytes` bytes.
#[inline]
pub(crate) fn enqueue<P: Packet>(p: &StepParams, pkts: u64, bytes: u64, pkt: &P) -> Verdict {
    let above = match p.k {
        StepThreshold::Packets(k) => pkts + 1 > k,
        StepThreshold::Bytes(k) => bytes + pkt.wire_len() as u64 > k,
    };
    if !above {
        Verdict::Enqueue
    } else if pkt.ecn_capable() {
        Verdict::Mark
    } else {
        Verdict::Drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Pkt {
        ect: bool,
    }

    impl Packet for Pkt {
        fn wire_len(&self) -> u32 {
            1500
        }
        fn ecn_capable(&self) -> bool {
            self.ect
        }
    }

    /// Above K an ECN-capable packet is marked and another dropped; at or below K
    /// (the arriving packet counted) both pass, in packets and in bytes.
    #[test]
    fn marks_or_drops_above_k_only() {
        let (ect, not) = (Pkt { ect: true }, Pkt { ect: false });
        let k = StepParams {
            k: StepThreshold::Packets(20),
        };
        assert_eq!(enqueue(&k, 19, 0, &ect), Verdict::Enqueue);
        assert_eq!(enqueue(&k, 19, 0, &not), Verdict::Enqueue);
        assert_eq!(enqueue(&k, 20, 0, &ect), Verdict::Mark);
        assert_eq!(enqueue(&k, 20, 0, &not), Verdict::Drop);
        let b = StepParams {
            k: StepThreshold::Bytes(30_000),
        };
        assert_eq!(enqueue(&b, 0, 28_500, &ect), Verdict::Enqueue);
        assert_eq!(enqueue(&b, 0, 28_501, &ect), Verdict::Mark);
        assert_eq!(enqueue(&b, 0, 28_501, &not), Verdict::Drop);
    }
}
