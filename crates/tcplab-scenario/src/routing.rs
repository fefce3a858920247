//! Routes: the cheapest chain of links between two nodes (Dijkstra), decided once when a
//! scenario is read. Ties are broken deterministically — by fewer hops, then by the
//! order links were declared — so a scenario always routes the same way.

use crate::scenario::{Hop, LinkSpec};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The hop crossing `link` starting from node `from`, if the link touches it.
fn hop_from(links: &[LinkSpec], link: usize, from: usize) -> Option<(usize, Hop)> {
    let l = &links[link];
    if l.a == from {
        Some((
            l.b,
            Hop {
                link,
                forward: true,
            },
        ))
    } else if l.b == from {
        Some((
            l.a,
            Hop {
                link,
                forward: false,
            },
        ))
    } else {
        None
    }
}

/// The cheapest link joining `a` and `b` (the first declared among equals), as a hop from `a`.
pub fn cheapest_link(links: &[LinkSpec], a: usize, b: usize) -> Option<Hop> {
    (0..links.len())
        .filter_map(|i| hop_from(links, i, a).filter(|(to, _)| *to == b))
        .min_by_key(|(_, h)| (links[h.link].cost, h.link))
        .map(|(_, h)| h)
}

/// The cheapest path from `src` to `dst` by total cost, then fewest hops, then the
/// earliest-declared links; `None` if no chain of links joins them.
pub fn shortest_path(
    n_nodes: usize,
    links: &[LinkSpec],
    src: usize,
    dst: usize,
) -> Option<Vec<Hop>> {
    // adjacency in declaration order
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n_nodes];
    for (i, l) in links.iter().enumerate() {
        adj[l.a].push(i);
        adj[l.b].push(i);
    }
    // Best (cost, hops) per node and the hop that reached it.
    let mut best: Vec<Option<(u64, u32)>> = vec![None; n_nodes];
    let mut via: Vec<Option<Hop>> = vec![None; n_nodes];
    let mut heap = BinaryHeap::new();
    best[src] = Some((0, 0));
    heap.push(Reverse((0u64, 0u32, src)));
    while let Some(Reverse((cost, hops, n))) = heap.pop() {
        if best[n] != Some((cost, hops)) {
            continue; // a stale entry
        }
        if n == dst {
            break;
        }
        for &li in &adj[n] {
            let (m, hop) = hop_from(links, li, n).expect("adjacent");
            let cand = (cost.saturating_add(links[li].cost), hops + 1);
            // Strictly better only: among equals the first found (declared earlier) stays.
            if best[m].is_none_or(|b| cand < b) {
                best[m] = Some(cand);
                via[m] = Some(hop);
                heap.push(Reverse((cand.0, cand.1, m)));
            }
        }
    }
    best[dst]?;
    let mut path = Vec::new();
    let mut n = dst;
    while n != src {
        let h = via[n].expect("reached nodes have a hop");
        path.push(h);
        let l = &links[h.link];
        n = if h.forward { l.a } else { l.b };
    }
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Duplex;
    use tcplab_core::Dur;
    use tcplab_link::LinkParams;

    fn link(a: usize, b: usize, cost: u64) -> LinkSpec {
        let p = LinkParams::new(1_000_000, Dur::ZERO);
        LinkSpec {
            name: format!("{a}-{b}"),
            a,
            b,
            duplex: Duplex::Full,
            cost,
            fwd: p.clone(),
            rev: p,
            schedule: vec![],
        }
    }

    fn route(p: &[Hop]) -> Vec<(usize, bool)> {
        p.iter().map(|h| (h.link, h.forward)).collect()
    }

    /// A diamond 0-1-3 / 0-2-3 plus a direct expensive 0-3, routed by hand.
    #[test]
    fn routes_by_cost_then_hops_then_declaration_order() {
        let links = vec![
            link(0, 1, 1), // 0
            link(1, 3, 1), // 1
            link(0, 2, 1), // 2
            link(2, 3, 1), // 3
            link(0, 3, 5), // 4
        ];
        // Two equal two-hop paths: the one through the earlier-declared links wins.
        assert_eq!(
            route(&shortest_path(4, &links, 0, 3).unwrap()),
            vec![(0, true), (1, true)]
        );
        // Backwards, links are crossed in reverse.
        assert_eq!(
            route(&shortest_path(4, &links, 3, 0).unwrap()),
            vec![(1, false), (0, false)]
        );
        // Make the direct link cheap: one hop wins.
        let mut cheap = links.clone();
        cheap[4].cost = 2;
        assert_eq!(
            route(&shortest_path(4, &cheap, 0, 3).unwrap()),
            vec![(4, true)]
        );
        // Equal cost 2 via one hop or two: fewer hops wins.
        assert_eq!(
            route(&shortest_path(4, &cheap, 3, 0).unwrap()),
            vec![(4, false)]
        );
        // Make the upper path expensive: the lower one is taken.
        let mut lower = links.clone();
        lower[1].cost = 10;
        assert_eq!(
            route(&shortest_path(4, &lower, 0, 3).unwrap()),
            vec![(2, true), (3, true)]
        );
    }

    #[test]
    fn unreachable_and_parallel_links() {
        let links = vec![link(0, 1, 3), link(0, 1, 2), link(2, 3, 1)];
        assert!(shortest_path(4, &links, 0, 3).is_none());
        assert_eq!(
            route(&shortest_path(4, &links, 1, 0).unwrap()),
            vec![(1, false)]
        );
        assert_eq!(cheapest_link(&links, 0, 1).map(|h| h.link), Some(1));
        assert_eq!(cheapest_link(&links, 0, 2), None);
    }

    /// A long chain routes end to end: no hop limit.
    #[test]
    fn a_long_chain_has_no_hop_limit() {
        let links: Vec<LinkSpec> = (0..40).map(|i| link(i, i + 1, 1)).collect();
        let p = shortest_path(41, &links, 0, 40).unwrap();
        assert_eq!(p.len(), 40);
        assert!(p.iter().enumerate().all(|(i, h)| h.link == i && h.forward));
    }
}
