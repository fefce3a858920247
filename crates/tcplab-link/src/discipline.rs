//! The queue discipline a link direction is configured with (a scenario value; the
//! running discipline is [`crate::qdisc`]'s).

use crate::codel::CoDelParams;
use crate::fq_codel::FqCoDelParams;
use crate::pie::PieParams;
use crate::red::RedParams;
use crate::step::StepParams;

/// The queue discipline of a link direction. Its limit is the link's `queue`
/// ([`QueueLimit`], packets or bytes waiting, the one in service excluded).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Discipline {
    /// Drop-tail FIFO decided at admission: the link's fast path.
    #[default]
    DropTail,
    /// The same drop-tail FIFO through the discipline seam: identical fates and times,
    /// and the sojourn times and per-cause counters of the other disciplines.
    Fifo,
    CoDel(CoDelParams),
    FqCoDel(FqCoDelParams),
    Pie(PieParams),
    Red(RedParams),
    /// Step marking at a threshold K (DCTCP's queue).
    Step(StepParams),
}

impl Discipline {
    /// The name used in scenarios and results.
    pub fn name(&self) -> &'static str {
        match self {
            Discipline::DropTail => "drop-tail",
            Discipline::Fifo => "fifo",
            Discipline::CoDel(_) => "codel",
            Discipline::FqCoDel(_) => "fq_codel",
            Discipline::Pie(_) => "pie",
            Discipline::Red(_) => "red",
            Discipline::Step(_) => "step",
        }
    }
}
