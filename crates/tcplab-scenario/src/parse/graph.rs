//! Graph topologies: `[[node]]` and `[[link]]` tables, flows from a node to a node.
//!
//! ```toml
//! [[node]]
//! name = "a"
//! [[node]]
//! name = "b"
//! [[link]]
//! between = ["a", "b"]     # forward is a -> b; `name` defaults to "a-b"
//! rate = "10Mbps"          # every link key; `reverse = { ... }` for the b -> a direction
//! cost = 1                 # routing cost (default 1: fewest hops)
//! [[wlan]]                 # an 802.11 cell: see wlan.rs
//! [[flow]]
//! from = "a"
//! to = "b"                 # shortest path by cost, or `path = ["a", ..., "b"]`
//! ```

use super::flow::parse_flow;
use super::link_table::parse_link;
use super::routed::Topology;
use super::{wlan, Section, R};
use crate::routing;
use crate::scenario::{Hop, LinkSpec, NodeSpec};
use std::collections::HashMap;
use toml::Value;

pub(super) fn parse(root: &Section<'_>, flow_secs: &[Section<'_>]) -> R<Topology> {
    let mut nodes = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let node_secs = root.tables("node")?;
    if node_secs.is_empty() {
        return Err(root.err(
            "node",
            None,
            "a graph topology needs [[node]] tables (each with a name)",
        ));
    }
    for n in &node_secs {
        let name = n
            .string("name")?
            .ok_or_else(|| n.err("name", None, "each [[node]] needs a name"))?;
        if name.is_empty() {
            return Err(n.err("name", n.table.get("name"), "must not be empty"));
        }
        if index.insert(name.to_string(), nodes.len()).is_some() {
            return Err(n.err("name", n.table.get("name"), "two nodes have this name"));
        }
        nodes.push(NodeSpec {
            name: name.to_string(),
        });
        n.finish()?;
    }
    let known = || {
        let mut v: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        v.sort_unstable();
        v.join(", ")
    };
    let lookup = |s: &Section<'_>, k: &str, v: &Value, name: &str| -> R<usize> {
        index
            .get(name)
            .copied()
            .ok_or_else(|| s.err(k, Some(v), format!("unknown node (nodes: {})", known())))
    };

    let mut links: Vec<LinkSpec> = Vec::new();
    for l in root.tables("link")? {
        let between = l.get("between");
        let (a, b) = match between {
            Some(v @ Value::Array(pair)) if pair.len() == 2 => {
                let name_of = |x: &Value| match x {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(l.err("between", Some(v), "node names are strings")),
                };
                let (na, nb) = (name_of(&pair[0])?, name_of(&pair[1])?);
                let a = lookup(&l, "between", &pair[0], &na)?;
                let b = lookup(&l, "between", &pair[1], &nb)?;
                if a == b {
                    return Err(l.err("between", Some(v), "a link joins two different nodes"));
                }
                (a, b)
            }
            v => {
                return Err(l.err(
                    "between",
                    v,
                    "each [[link]] needs between = [\"<node>\", \"<node>\"]",
                ))
            }
        };
        let explicit_name = l.string("name")?;
        let name = explicit_name
            .map(str::to_string)
            .unwrap_or_else(|| format!("{}-{}", nodes[a].name, nodes[b].name));
        let cost = l.uint("cost", 1, u32::MAX as u64)?.unwrap_or(1);
        if let Some(other) = links.iter().find(|o| o.name == name) {
            let why = if explicit_name.is_some() {
                "two links have this name".to_string()
            } else {
                format!(
                    "a second link between {} and {} (the first is '{}'): give each a name",
                    nodes[a].name, nodes[b].name, other.name
                )
            };
            return Err(l.err("name", l.table.get("name"), why));
        }
        let mut spec = parse_link(&l, &name, a, b)?;
        spec.cost = cost;
        links.push(spec);
    }
    let wlans = wlan::parse(root, &lookup, &nodes, &mut links)?;
    if links.is_empty() {
        return Err(root.err(
            "link",
            None,
            "a graph topology needs [[link]] (or [[wlan]]) tables",
        ));
    }

    let mut flows = Vec::new();
    let mut origin = Vec::new();
    for (k, f) in flow_secs.iter().enumerate() {
        let path = explicit_path(f, &lookup, &links, &nodes)?;
        let endpoint = |key: &str| -> R<Option<usize>> {
            match f.get(key) {
                None => Ok(None),
                Some(v @ Value::String(s)) => lookup(f, key, v, s).map(Some),
                Some(v) => Err(f.err(key, Some(v), "expected a node name")),
            }
        };
        let from = endpoint("from")?;
        let to = endpoint("to")?;
        let (src, dst, hops) = match path {
            Some((nodes_on_path, hops)) => {
                let (first, last) = (nodes_on_path[0], *nodes_on_path.last().expect("≥ 2"));
                if from.is_some_and(|x| x != first) || to.is_some_and(|x| x != last) {
                    return Err(f.err(
                        "path",
                        f.table.get("path"),
                        "must start at `from` and end at `to`",
                    ));
                }
                (first, last, hops)
            }
            None => {
                let (Some(src), Some(dst)) = (from, to) else {
                    let k = if from.is_none() { "from" } else { "to" };
                    return Err(f.err(
                        k,
                        None,
                        "a flow in a graph needs from = \"<node>\" and to = \"<node>\" (or a path)",
                    ));
                };
                if src == dst {
                    return Err(f.err("to", f.table.get("to"), "must differ from `from`"));
                }
                let hops =
                    routing::shortest_path(nodes.len(), &links, src, dst).ok_or_else(|| {
                        f.err(
                            "to",
                            f.table.get("to"),
                            format!(
                                "no route from {} to {}: no chain of [[link]]s joins them",
                                nodes[src].name, nodes[dst].name
                            ),
                        )
                    })?;
                (src, dst, hops)
            }
        };
        for mut spec in parse_flow(f, flows.len(), &[])? {
            spec.src = src;
            spec.dst = dst;
            spec.path = hops.clone();
            flows.push(spec);
            origin.push(k);
        }
    }
    Ok(Topology {
        nodes,
        links,
        wlans,
        flows,
        origin,
    })
}

/// `path = ["a", "r", "b"]`: the nodes in order and the hops between them (the cheapest
/// link, first declared on ties, where several join a pair).
#[allow(clippy::type_complexity)]
fn explicit_path(
    f: &Section<'_>,
    lookup: &dyn Fn(&Section<'_>, &str, &Value, &str) -> R<usize>,
    links: &[LinkSpec],
    nodes: &[NodeSpec],
) -> R<Option<(Vec<usize>, Vec<Hop>)>> {
    let Some(v) = f.get("path") else {
        return Ok(None);
    };
    let Value::Array(items) = v else {
        return Err(f.err("path", Some(v), "expected a list of node names"));
    };
    if items.len() < 2 {
        return Err(f.err("path", Some(v), "a path names at least two nodes"));
    }
    let mut on_path = Vec::with_capacity(items.len());
    for x in items {
        let Value::String(s) = x else {
            return Err(f.err("path", Some(v), "node names are strings"));
        };
        let n = lookup(f, "path", x, s)?;
        if on_path.contains(&n) {
            return Err(f.err("path", Some(v), format!("visits {s} twice")));
        }
        on_path.push(n);
    }
    let mut hops = Vec::with_capacity(items.len() - 1);
    for w in on_path.windows(2) {
        let hop = routing::cheapest_link(links, w[0], w[1]).ok_or_else(|| {
            f.err(
                "path",
                Some(v),
                format!(
                    "no link between {} and {}",
                    nodes[w[0]].name, nodes[w[1]].name
                ),
            )
        })?;
        hops.push(hop);
    }
    Ok(Some((on_path, hops)))
}
