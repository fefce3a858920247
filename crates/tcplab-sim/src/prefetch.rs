//! Asking the cache for the next link direction a packet enters, ahead of its admission.
//!
//! With thousands of flows each packet hop finds its next link direction out of the
//! L2. A link direction that holds a queue knows which packet leaves next, a
//! serialisation time before it leaves: when that packet goes on to one of several
//! media (a shared bottleneck, whose next medium is one that another flow's packet last
//! used, long ago), a prefetch of that medium lets the miss overlap the work in between
//! instead of stalling the admission. Measured −4.8 % wall time on B2 at 1000 flows
//! (docs/performance.md).

use crate::media::{AnyMedium, Step};

/// Flows from which the loop looks ahead: with B2's three hops a side, 256 flows' state
/// is about 0.7 MB; below, it stays in cache and a prefetch only costs instructions.
const LOOK_AHEAD_FLOWS: usize = 256;

/// By medium, whether its wake-up looks ahead (see [`fan_out`]); empty when no medium
/// does.
pub(crate) struct LookAhead(Vec<bool>);

impl LookAhead {
    /// The policy for a run of `flows` flows over `routes` (each ended by
    /// [`Step::END`]) through `media` media.
    pub fn new(flows: usize, routes: &[Step], media: usize) -> LookAhead {
        if flows < LOOK_AHEAD_FLOWS {
            return LookAhead(Vec::new());
        }
        LookAhead(fan_out(routes, media))
    }

    /// After link direction `m` delivered what was due and still holds packets: asks for
    /// the medium its next packet enters.
    #[inline(always)]
    pub fn after_deliveries(&self, m: usize, media: &[AnyMedium], routes: &[Step]) {
        if self.0.get(m) == Some(&true) {
            next_medium(m, media, routes);
        }
    }
}

/// Prefetches the medium that link direction `m`'s next packet enters after it. Out of
/// line, so that the loop's code does not change for runs that never look ahead.
#[inline(never)]
fn next_medium(m: usize, media: &[AnyMedium], routes: &[Step]) {
    let AnyMedium::Link(link) = &media[m] else {
        return;
    };
    if let Some(n) = link.peek_front() {
        let s = routes[n.step.get() as usize + 1];
        if s.medium != Step::END.medium {
            first_two_lines(media.as_ptr().wrapping_add(s.medium as usize));
        }
    }
}

/// By medium (`media` of them), whether the packets that cross it go on to more than one
/// medium (a shared bottleneck). `routes` are runs of steps, each ended by
/// [`Step::END`], so consecutive steps that are both media are a hop and the next one.
fn fan_out(routes: &[Step], media: usize) -> Vec<bool> {
    let (mut next, mut fans) = (vec![Step::END.medium; media], vec![false; media]);
    for w in routes.windows(2) {
        let (a, b) = (w[0].medium, w[1].medium);
        if a == Step::END.medium || b == Step::END.medium {
            continue;
        }
        let seen = &mut next[a as usize];
        if *seen == Step::END.medium {
            *seen = b;
        } else if *seen != b {
            fans[a as usize] = true;
        }
    }
    fans
}

/// Asks for the first two cache lines at `v` (a hint: no effect on any result, and no
/// fault whatever the address, so `v` need not point at a value).
#[inline(always)]
fn first_two_lines<T>(v: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = v as *const i8;
        // SAFETY: `sse` is part of the x86_64 baseline, and a prefetch never faults,
        // whatever the address (it reads nothing the program sees).
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::Wiring;
    use crate::net::Net;

    /// A prefetch reads nothing the program sees and never faults: of a value, of no
    /// address, and of an address far past any allocation (as the loop may compute for a
    /// medium index that is not one).
    #[test]
    fn a_prefetch_of_any_address_changes_nothing() {
        let v = [7u64; 32];
        first_two_lines(&v);
        first_two_lines(std::ptr::null::<u64>());
        first_two_lines(v.as_ptr().wrapping_add(1 << 40));
        assert_eq!(v, [7u64; 32]);
    }

    /// Only a medium whose packets go on to different media looks ahead: B2's bottleneck
    /// directions, not the access links (whose next hop is the bottleneck, or the end).
    #[test]
    fn only_media_whose_packets_go_on_to_several_media_look_ahead() {
        let hop = |medium| Step {
            medium,
            from: 0,
            to: 1,
        };
        let end = Step::END;
        // Two flows: 0 → 2 → 3 and 1 → 2 → 4 (the bottleneck 2), back 5 → 6 → 7 and
        // 8 → 6 → 7 (medium 6 always goes on to 7); medium 9 carries nothing.
        let routes = [
            end,
            hop(0),
            hop(2),
            hop(3),
            end,
            hop(5),
            hop(6),
            hop(7),
            end,
            hop(1),
            hop(2),
            hop(4),
            end,
            hop(8),
            hop(6),
            hop(7),
            end,
        ];
        let fans = fan_out(&routes, 10);
        let want: Vec<bool> = (0..10).map(|m| m == 2).collect();
        assert_eq!(fans, want);

        let text = include_str!("../../../python/tcplab/data/b2.toml");
        let sc =
            crate::parse_scenario_str(&text.replace("count = 100", "count = 3"), "b2").unwrap();
        let mut net = Net::new(Wiring::new(&sc, 1), sc.flows.len());
        for f in &sc.flows {
            net.add_routes(&sc.links, &f.path);
        }
        let media = net.wiring.media.len();
        let fans = fan_out(&net.routes, media);
        // The one link every flow crosses.
        let bottleneck = (0..sc.links.len())
            .find(|&k| sc.flows.iter().all(|f| f.path.iter().any(|h| h.link == k)))
            .unwrap();
        let want: Vec<bool> = (0..media)
            .map(|m| net.wiring.of_link[bottleneck].contains(&(m as u32)))
            .collect();
        assert_eq!(fans, want, "the bottleneck's two directions only");
        assert!(
            LookAhead::new(3, &net.routes, media).0.is_empty(),
            "few flows"
        );
        assert_eq!(LookAhead::new(LOOK_AHEAD_FLOWS, &net.routes, media).0, want);
    }
}
