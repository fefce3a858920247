//! The addresses a capture gives the simulator's nodes and flows.
//!
//! Node `n` (index in the scenario's `[[node]]` list, or the shorthand's implied nodes) is
//! `10.0.0.0 + n + 1`: node 0 is 10.0.0.1, node 255 is 10.0.1.0. Flow `f`'s source sends
//! from port `10000 + f % 50000` to port `5001 + f / 50000` on its destination node, and
//! its sink answers on the same pair reversed, so every flow has its own 4-tuple even when
//! several flows share both nodes.

/// The IPv4 address of node `n` (distinct for up to 2^24 - 2 nodes).
pub fn node_ip(n: usize) -> [u8; 4] {
    let v = 0x0a00_0000u32 | ((n as u32).wrapping_add(1) & 0x00ff_ffff);
    v.to_be_bytes()
}

/// Flow `f`'s (source port, destination port).
pub fn flow_ports(f: u32) -> (u16, u16) {
    ((10_000 + f % 50_000) as u16, (5001 + f / 50_000) as u16)
}

/// One flow's two ends as they appear on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Endpoints {
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
}

impl Endpoints {
    pub fn of_flow(f: u32, src_node: usize, dst_node: usize) -> Endpoints {
        let (src_port, dst_port) = flow_ports(f);
        Endpoints {
            src_ip: node_ip(src_node),
            dst_ip: node_ip(dst_node),
            src_port,
            dst_port,
        }
    }

    /// The same pair seen from the other end (the sink's packets).
    pub fn reversed(self) -> Endpoints {
        Endpoints {
            src_ip: self.dst_ip,
            dst_ip: self.src_ip,
            src_port: self.dst_port,
            dst_port: self.src_port,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn documented_examples() {
        assert_eq!(node_ip(0), [10, 0, 0, 1]);
        assert_eq!(node_ip(255), [10, 0, 1, 0]);
        assert_eq!(flow_ports(0), (10_000, 5001));
        assert_eq!(flow_ports(50_001), (10_001, 5002));
    }

    #[test]
    fn flows_between_the_same_nodes_get_distinct_tuples() {
        let tuples: HashSet<_> = (0..120_000u32)
            .map(|f| Endpoints::of_flow(f, 0, 1))
            .collect();
        assert_eq!(tuples.len(), 120_000);
    }
}
