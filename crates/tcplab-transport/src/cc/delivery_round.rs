//! Round trips counted by delivery (BBR draft section 4.1.1.3, RFC 9406's "ACK beyond
//! windowEnd"): a round ends when an ACK acknowledges a segment sent after the round
//! began, i.e. the delivery-rate sample's `prior_delivered` reached the round's mark.
//! One place for the rule that BBR and both HyStarts count rounds by.

use super::AckInfo;

#[derive(Clone, Copy, Debug, Default)]
pub struct DeliveryRound {
    /// `delivered` when the current round began: its end mark.
    end: u64,
}

impl DeliveryRound {
    /// True when `ack` ends the current round and so starts the next, whose mark is what
    /// has been delivered with this ACK.
    pub fn starts(&mut self, ack: &AckInfo) -> bool {
        match ack.rate {
            Some(rs) if rs.prior_delivered >= self.end => {
                self.end = ack.delivered;
                true
            }
            _ => false,
        }
    }

    /// The next round starts with the first ACK of data sent from now on (`delivered`
    /// is what has been delivered so far).
    pub fn restart_at(&mut self, delivered: u64) {
        self.end = delivered;
    }
}
