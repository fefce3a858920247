//! What a coded sink records to measure decoding (seed 004, Figs. 8 and 9): when the
//! first symbol combining each segment arrived, when each segment entered the sender's
//! coding layer (from the symbols' headers), and the statistics they give. TCP/NC's and
//! TCP-Forward's sinks keep one each, whatever their decoders.

use super::decode_stats::{Arrivals, DecodeStats};
use super::entry::EntryLog;
use super::packet::Symbol;
use tcplab_core::Time;

/// A sink's decoding measurements (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct DecodeRecord {
    arrivals: Arrivals,
    entries: EntryLog,
    stats: DecodeStats,
}

impl DecodeRecord {
    /// Symbol `sym`, combining segments `sym.start..end`, arrived at `now`.
    pub fn symbol(&mut self, now: Time, sym: &Symbol, end: u32) {
        self.entries.learn(sym.newest, sym.entered);
        self.arrivals.saw(now, sym.start, end);
    }

    /// A symbol decoded at least one segment.
    pub fn decode_event(&mut self) {
        self.stats.events += 1;
    }

    /// Segment `i` was decoded, the receiver's CPU done with it at `done`.
    pub fn decoded(&mut self, done: Time, i: u32) {
        let entered = self.entries.of(i);
        self.stats.decoded(done, self.arrivals.of(i), entered);
    }

    /// Every segment below `b` is decoded in order: their times are no longer needed.
    pub fn forget_below(&mut self, b: u32) {
        self.arrivals.drop_below(b);
        self.entries.forget_below(b);
    }

    pub fn stats(&self) -> &DecodeStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coded::packet::Code;
    use tcplab_core::metrics::Collected;

    fn symbol(start: u32, span: u32, newest: u32, entered: u64) -> Symbol {
        Symbol {
            flow: 0,
            code: Code::Lt,
            start,
            span,
            seed: 0,
            base: 0,
            payload: 0,
            repair: false,
            newest,
            entered: Time(entered),
        }
    }

    /// A decoded segment's delay runs from the first symbol that combined it, its
    /// latency from when it entered the sender's coding layer; a segment forgotten
    /// (delivered in order) has neither any more.
    #[test]
    fn a_segment_is_timed_from_its_first_symbol_and_its_entry() {
        let mut r = DecodeRecord::default();
        r.symbol(Time(100), &symbol(0, 2, 1, 40), 2);
        r.symbol(Time(150), &symbol(0, 3, 2, 90), 3);
        r.decode_event();
        r.decoded(Time(200), 1);
        let mut out = Collected::default();
        r.stats().publish(&mut out);
        assert_eq!(out.get("decode_events"), Some("1"));
        assert_eq!(
            out.get("decode_delay_max_s"),
            Some("0.0000001"),
            "200 - 100 ns"
        );
        assert_eq!(out.get("latency_max_s"), Some("0.00000016"), "200 - 40 ns");
        r.forget_below(2);
        r.decoded(Time(300), 1);
        let mut out = Collected::default();
        r.stats().publish(&mut out);
        assert_eq!(
            out.get("latency_max_s"),
            Some("0.00000016"),
            "no entry time for 1"
        );
        assert_eq!(out.get("segments_decoded"), Some("2"));
    }
}
