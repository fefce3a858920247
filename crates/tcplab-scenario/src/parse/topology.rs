//! Topologies: the point-to-point and dumbbell shorthands, expanded into nodes, links
//! and routed flows exactly as a `[[node]]`/`[[link]]` graph would be (see `graph.rs`).
//!
//! - point-to-point: nodes `src` and `dst`, one link `link` between them;
//! - dumbbell: routers `left` and `right` joined by `bottleneck`; flow `i` runs from
//!   `src<i>` over `access<i>.src` to `left`, and from `right` over `access<i>.dst` to
//!   `dst<i>`.

use super::flow::parse_flow;
use super::link_table::parse_link;
use super::routed::Topology;
use super::{graph, Section, R};
use crate::scenario::{Duplex, Hop, LinkSpec, NodeSpec};
use tcplab_core::Dur;
use tcplab_link::LinkParams;
use toml::Value;

pub(super) fn parse(root: &Section<'_>, flow_secs: &[Section<'_>]) -> R<Topology> {
    let topo = root.table("topology")?;
    let explicit = match &topo {
        Some(s) => {
            let k = s.string("kind")?;
            s.finish()?;
            k
        }
        None => None,
    };
    let has_nodes = root.table.contains_key("node");
    let kind = explicit.unwrap_or(if has_nodes { "graph" } else { "point-to-point" });
    if kind != "graph" && root.table.contains_key("wlan") {
        return Err(root.err(
            "wlan",
            None,
            "[[wlan]] cells join named nodes: they need [[node]] tables (a graph topology)",
        ));
    }
    if has_nodes && kind != "graph" {
        return Err(root.err(
            "node",
            None,
            format!("[[node]] tables describe a graph topology, not a {kind} one"),
        ));
    }
    match kind {
        "point-to-point" => point_to_point(root, flow_secs),
        "dumbbell" => dumbbell(root, flow_secs),
        "graph" => graph::parse(root, flow_secs),
        other => {
            let t = topo.as_ref().expect("kind came from [topology]");
            Err(t.err(
                "kind",
                Some(&Value::String(other.to_string())),
                "unknown topology (use \"point-to-point\", \"dumbbell\" or \"graph\")",
            ))
        }
    }
}

fn node(name: impl Into<String>) -> NodeSpec {
    NodeSpec { name: name.into() }
}

fn point_to_point(root: &Section<'_>, flow_secs: &[Section<'_>]) -> R<Topology> {
    if let Some(Value::Array(_)) = root.table.get("link") {
        return Err(root.err(
            "link",
            None,
            "[[link]] (a list of links) needs [[node]] tables (a graph topology); \
             a point-to-point scenario has one [link]",
        ));
    }
    let Some(l) = root.table("link")? else {
        return Err(root.err(
            "link",
            None,
            "a point-to-point topology needs a [link] table",
        ));
    };
    let links = vec![parse_link(&l, "link", 0, 1)?];
    let mut flows = Vec::new();
    let mut origin = Vec::new();
    for (k, f) in flow_secs.iter().enumerate() {
        for mut spec in parse_flow(f, flows.len(), &[])? {
            spec.src = 0;
            spec.dst = 1;
            spec.path = vec![Hop {
                link: 0,
                forward: true,
            }];
            flows.push(spec);
            origin.push(k);
        }
    }
    Ok(Topology {
        nodes: vec![node("src"), node("dst")],
        links,
        wlans: vec![],
        flows,
        origin,
    })
}

fn default_access(name: String, a: usize, b: usize) -> LinkSpec {
    let p = LinkParams::new(10_000_000_000, Dur::ZERO);
    LinkSpec {
        name,
        a,
        b,
        duplex: Duplex::Full,
        cost: 1,
        fwd: p.clone(),
        rev: p,
        schedule: vec![],
    }
}

fn access_overrides(f: &Section<'_>) -> R<(Option<Dur>, Option<u64>)> {
    let d = f.duration("access_delay")?;
    let r = f.rate("access_rate")?;
    if r == Some(0) {
        return Err(f.err(
            "access_rate",
            f.table.get("access_rate"),
            "a link rate must be > 0",
        ));
    }
    Ok((d, r))
}

/// An access link named `name` between `a` and `b`: the `[access]` table's link, or the
/// default one. Every access link reads the same table, so it is read once (its errors name
/// the first access link, as before) and copied: with 10,000 flows, reading it 20,000 times
/// was most of the parse.
fn access_link(
    access: &Option<Section<'_>>,
    template: &mut Option<LinkSpec>,
    name: String,
    a: usize,
    b: usize,
) -> R<LinkSpec> {
    let Some(t) = access else {
        return Ok(default_access(name, a, b));
    };
    let mut l = match template {
        Some(l) => l.clone(),
        None => template.insert(parse_link(t, &name, a, b)?).clone(),
    };
    (l.name, l.a, l.b) = (name, a, b);
    Ok(l)
}

fn dumbbell(root: &Section<'_>, flow_secs: &[Section<'_>]) -> R<Topology> {
    let Some(b) = root.table("bottleneck")? else {
        return Err(root.err(
            "bottleneck",
            None,
            "a dumbbell topology needs a [bottleneck] table",
        ));
    };
    let (left, right) = (0, 1);
    let mut nodes = vec![node("left"), node("right")];
    let mut links = vec![parse_link(&b, "bottleneck", left, right)?];
    let access = root.table("access")?;
    let mut template = None;
    let mut flows = Vec::new();
    let mut origin = Vec::new();
    for (k, f) in flow_secs.iter().enumerate() {
        let overrides = access_overrides(f)?;
        for mut spec in parse_flow(f, flows.len(), &["access_delay", "access_rate"])? {
            let i = flows.len();
            let (src, dst) = (nodes.len(), nodes.len() + 1);
            nodes.push(node(format!("src{i}")));
            nodes.push(node(format!("dst{i}")));
            let (sname, dname) = (format!("access{i}.src"), format!("access{i}.dst"));
            let mut sl = access_link(&access, &mut template, sname, src, left)?;
            let mut dl = access_link(&access, &mut template, dname, right, dst)?;
            if let Some(d) = overrides.0 {
                sl.fwd.delay = d;
                sl.rev.delay = d;
            }
            if let Some(r) = overrides.1 {
                for l in [&mut sl, &mut dl] {
                    l.fwd.rate_bps = r;
                    l.rev.rate_bps = r;
                }
            }
            links.push(sl);
            links.push(dl);
            let hop = |link| Hop {
                link,
                forward: true,
            };
            spec.src = src;
            spec.dst = dst;
            spec.path = vec![hop(links.len() - 2), hop(0), hop(links.len() - 1)];
            flows.push(spec);
            origin.push(k);
        }
    }
    if let Some(a) = access {
        a.finish()?;
    }
    Ok(Topology {
        nodes,
        links,
        wlans: vec![],
        flows,
        origin,
    })
}
