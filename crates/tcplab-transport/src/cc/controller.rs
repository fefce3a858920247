//! Built-in controllers by name, plus a registry for user-defined ones.

use super::{
    AckInfo, Capabilities, CcMetrics, CcParams, CongestionControl, CongestionEvent, HeadSegment,
    Window,
};
use std::sync::RwLock;
use tcplab_core::Time;

/// Builds a user controller from its parameters (unknown ones must be left untaken).
pub type Factory = fn(&mut CcParams) -> Result<Box<dyn CongestionControl + Send>, String>;

static REGISTRY: RwLock<Vec<(String, Factory)>> = RwLock::new(Vec::new());

/// Registers a user-defined controller under `name`, usable in scenarios as `cc = "name"`.
/// Built-in names cannot be replaced; registering a user name again replaces it.
pub fn register(name: &str, factory: Factory) -> Result<(), String> {
    if BUILTIN.contains(&name) {
        return Err(format!("'{name}' is a built-in congestion control"));
    }
    let mut reg = REGISTRY
        .write()
        .map_err(|_| "registry poisoned".to_string())?;
    reg.retain(|(n, _)| n != name);
    reg.push((name.to_string(), factory));
    Ok(())
}

/// Declares the built-in controllers: enum variant, type (`in Box` for large ones), and
/// the scenario names that select it. Adding a controller is one line here (its type
/// needs `from_params`).
macro_rules! builtins {
    (@slot $ty:ty) => { $ty };
    (@slot $ty:ty, Box) => { Box<$ty> };
    ($($variant:ident($ty:ty) $(in $wrap:ident)? = [$($name:literal),+];)+) => {
        /// A controller: built-ins by enum (static dispatch), user controllers boxed.
        /// One lives per flow and the enum is as large as its largest variant, so the
        /// controllers with state beyond a few counters (BBR 360 bytes, Wave, Vegas,
        /// CUBIC, the Westwoods) are boxed: a NewReno flow then carries 40 bytes instead
        /// of 360, for one pointer chase per ACK in the flows that use them.
        pub enum Controller {
            $($variant(builtins!(@slot $ty $(, $wrap)?)),)+
            Custom(Box<dyn CongestionControl + Send>),
        }

        /// Names understood by [`build`] without registration.
        pub const BUILTIN: &[&str] = &[$($($name,)+)+];

        fn build_builtin(name: &str, p: &mut CcParams) -> Option<Result<Controller, String>> {
            match name {
                $($($name)|+ => Some(<$ty>::from_params(p).map(|c| Controller::$variant(c.into()))),)+
                _ => None,
            }
        }

        macro_rules! dispatch {
            ($self:ident, $c:ident => $e:expr) => {
                match $self {
                    $(Controller::$variant($c) => $e,)+
                    Controller::Custom($c) => $e,
                }
            };
        }
    };
}

builtins! {
    NewReno(super::NewReno) = ["newreno", "reno"];
    FixedBurst(super::FixedBurst) = ["fixed_burst"];
    Tahoe(super::Tahoe) = ["tahoe"];
    Vegas(super::Vegas) in Box = ["vegas"];
    Westwood(super::Westwood) in Box = ["westwood"];
    WestwoodPlus(super::WestwoodPlus) in Box = ["westwoodplus", "westwood_plus", "westwood+"];
    Wave(super::Wave) in Box = ["wave"];
    Cubic(super::Cubic) in Box = ["cubic"];
    Bbr(super::Bbr) in Box = ["bbr"];
    Dctcp(super::Dctcp) in Box = ["dctcp"];
}

/// A built-in's whole state (tests compare controllers by it).
#[cfg(test)]
impl Controller {
    fn state(&self) -> String {
        match self {
            Controller::NewReno(c) => format!("{c:?}"),
            Controller::FixedBurst(c) => format!("{c:?}"),
            Controller::Tahoe(c) => format!("{c:?}"),
            Controller::Vegas(c) => format!("{c:?}"),
            Controller::Westwood(c) => format!("{c:?}"),
            Controller::WestwoodPlus(c) => format!("{c:?}"),
            Controller::Wave(c) => format!("{c:?}"),
            Controller::Cubic(c) => format!("{c:?}"),
            Controller::Bbr(c) => format!("{c:?}"),
            Controller::Dctcp(c) => format!("{c:?}"),
            Controller::Custom(c) => c.name().to_string(),
        }
    }
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Controller({})", self.name())
    }
}

/// Why [`build`] refused: the name (unknown, or the registry unreadable) or the
/// parameters (unknown or out of range); so a scenario error can name the right key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    Name(String),
    Params(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Name(why) | BuildError::Params(why) => f.write_str(why),
        }
    }
}

impl From<BuildError> for String {
    fn from(e: BuildError) -> String {
        e.to_string()
    }
}

/// Builds the controller called `name` with `params`, rejecting unknown names and parameters.
pub fn build(name: &str, params: &CcParams) -> Result<Controller, BuildError> {
    let mut p = params.clone();
    let c = match build_builtin(name, &mut p) {
        Some(c) => c.map_err(BuildError::Params)?,
        None => {
            let reg = REGISTRY
                .read()
                .map_err(|_| BuildError::Name("registry poisoned".to_string()))?;
            match reg.iter().find(|(n, _)| n == name) {
                Some((_, f)) => Controller::Custom(f(&mut p).map_err(BuildError::Params)?),
                None => {
                    let mut names: Vec<String> = BUILTIN.iter().map(|s| s.to_string()).collect();
                    names.extend(reg.iter().map(|(n, _)| n.clone()));
                    return Err(BuildError::Name(format!(
                        "unknown congestion control '{name}' (available: {})",
                        names.join(", ")
                    )));
                }
            }
        }
    };
    p.finish(&format!("congestion control '{name}'"))
        .map_err(BuildError::Params)?;
    Ok(c)
}

impl CongestionControl for Controller {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    fn capabilities(&self) -> Capabilities {
        dispatch!(self, c => c.capabilities())
    }
    fn init(&mut self, w: &mut Window, now: Time) {
        dispatch!(self, c => c.init(w, now))
    }
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        dispatch!(self, c => c.on_ack(w, ack))
    }
    fn on_dup_ack(&mut self, w: &mut Window, now: Time, in_flight: u64) {
        dispatch!(self, c => c.on_dup_ack(w, now, in_flight))
    }
    fn on_lost(&mut self, w: &mut Window, bytes: u64, in_flight: u64) {
        dispatch!(self, c => c.on_lost(w, bytes, in_flight))
    }
    fn on_lost_change(&mut self, w: &mut Window, bytes: u64, in_flight: u64, in_recovery: bool) {
        dispatch!(self, c => c.on_lost_change(w, bytes, in_flight, in_recovery))
    }
    fn on_congestion_event(
        &mut self,
        w: &mut Window,
        ev: CongestionEvent,
        now: Time,
        in_flight: u64,
    ) {
        dispatch!(self, c => c.on_congestion_event(w, ev, now, in_flight))
    }
    fn on_ecn_echo(&mut self, w: &mut Window, now: Time, in_flight: u64) {
        dispatch!(self, c => c.on_ecn_echo(w, now, in_flight))
    }
    fn on_recovery_exit(&mut self, w: &mut Window, now: Time) {
        dispatch!(self, c => c.on_recovery_exit(w, now))
    }
    fn retransmit_head(&mut self, head: &HeadSegment) -> bool {
        dispatch!(self, c => c.retransmit_head(head))
    }
    fn on_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
        dispatch!(self, c => c.on_sent(now, bytes, in_flight))
    }
    fn fast_recovery(&self) -> bool {
        dispatch!(self, c => c.fast_recovery())
    }
    fn recovery_inflation(&self) -> bool {
        dispatch!(self, c => c.recovery_inflation())
    }
    fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, c => c.pacing_rate())
    }
    fn send_quantum(&self) -> u32 {
        dispatch!(self, c => c.send_quantum())
    }
    fn send_timer(&self) -> Option<Time> {
        dispatch!(self, c => c.send_timer())
    }
    fn on_send_timer(&mut self, w: &mut Window, now: Time) -> u32 {
        dispatch!(self, c => c.on_send_timer(w, now))
    }
    fn on_segments_sent(&mut self, w: &mut Window, now: Time, sent: u32) {
        dispatch!(self, c => c.on_segments_sent(w, now, sent))
    }
    fn on_no_data(&mut self, w: &mut Window, now: Time) {
        dispatch!(self, c => c.on_no_data(w, now))
    }
    fn metrics(&self, w: &Window) -> CcMetrics {
        dispatch!(self, c => c.metrics(w))
    }
    fn trace(&self, emit: &mut dyn FnMut(&'static str, f64)) {
        dispatch!(self, c => c.trace(emit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ACK of `bytes_acked` at `ms` milliseconds: 10 ms RTTs, 20 kB in flight, no rate
    /// sample (the base of this module's ACKs).
    fn ack_at(ms: u64, bytes_acked: u64) -> AckInfo {
        let rtt = Some(tcplab_core::Dur::from_millis(10));
        AckInfo {
            rtt,
            srtt: rtt,
            min_rtt: rtt,
            in_flight: 20_000,
            delivered: 50_000,
            ..AckInfo::bare(Time(ms * 1_000_000), bytes_acked)
        }
    }

    /// A rate sample over 10 ms delivering at `delivery_rate`.
    fn rate(delivery_rate: u64) -> Option<crate::rate::RateSample> {
        Some(crate::rate::RateSample {
            delivered: 5_000,
            interval: tcplab_core::Dur::from_millis(10),
            delivery_rate,
            ..Default::default()
        })
    }

    /// Built-in `name`, initialised on a 10-segment window with `ssthresh`.
    fn started(name: &str, ssthresh: u64) -> (Controller, Window) {
        let mut c = build(name, &CcParams::default()).unwrap();
        let mut w = Window {
            cwnd: 14_480,
            ssthresh,
            mss: 1448,
        };
        c.init(&mut w, Time::ZERO);
        (c, w)
    }

    #[test]
    fn a_controller_is_as_small_as_the_small_built_ins() {
        // One per flow: the large controllers are boxed (360 bytes with BBR inline).
        assert!(std::mem::size_of::<Controller>() <= 40);
        let c = build("bbr", &CcParams::default()).unwrap();
        assert_eq!(c.name(), "bbr");
    }

    /// The built-ins that say they do not read the delivery-rate sample or the delivered
    /// count act the same through ACKs, losses and the recovery's end whether an ACK
    /// carries them or not (their sender keeps no rate sampler); for the others the
    /// answer differs. CUBIC reads them only with HyStart.
    #[test]
    fn only_rate_readers_see_the_rate() {
        let hystart = |v: &str| CcParams::default().with_name("hystart", v);
        let mut cases: Vec<(&str, CcParams)> =
            BUILTIN.iter().map(|n| (*n, CcParams::default())).collect();
        for v in ["hystartpp", "classic", "classic-ns3"] {
            cases.push(("cubic", hystart(v)));
        }
        for (name, params) in cases {
            let start = || {
                let mut c = build(name, &params).unwrap();
                let mut w = Window {
                    cwnd: 14_480,
                    ssthresh: u64::MAX,
                    mss: 1448,
                };
                c.init(&mut w, Time::ZERO);
                (c, w)
            };
            let ((mut a, mut wa), (mut b, mut wb)) = (start(), start());
            let mut same = true;
            for ms in 1..400u64 {
                let now = Time(ms * 1_000_000);
                // RTTs that rise (HyStart's exit), rates that vary.
                let rtt = Some(tcplab_core::Dur::from_micros(10_000 + ms * 50));
                let bare = AckInfo {
                    rtt,
                    srtt: rtt,
                    min_rtt: Some(tcplab_core::Dur::from_millis(10)),
                    in_flight: 20_000,
                    ..AckInfo::bare(now, 1448)
                };
                let full = AckInfo {
                    rate: Some(crate::rate::RateSample {
                        delivered: 2 * 1448,
                        interval: tcplab_core::Dur::from_millis(10),
                        delivery_rate: 1_000_000 + (ms % 7) * 100_000,
                        rtt,
                        prior_delivered: ms * 1448,
                        ..Default::default()
                    }),
                    delivered: (ms + 14) * 1448,
                    ..bare
                };
                for (c, w, info) in [(&mut a, &mut wa, &full), (&mut b, &mut wb, &bare)] {
                    // Wave counts its bursts by what is sent.
                    c.on_sent(now, 1448, 20_000);
                    match ms % 100 {
                        50 => {
                            c.on_congestion_event(w, CongestionEvent::FastRetransmit, now, 20_000)
                        }
                        55 => c.on_recovery_exit(w, now),
                        _ => c.on_ack(w, info),
                    }
                    if c.send_timer().is_some_and(|t| t <= now) {
                        c.on_send_timer(w, now);
                    }
                }
                same &= wa == wb
                    && a.metrics(&wa) == b.metrics(&wb)
                    && a.pacing_rate() == b.pacing_rate()
                    && a.send_timer() == b.send_timer()
                    && a.state() == b.state();
            }
            assert_eq!(
                a.capabilities().has(Capabilities::READS_DELIVERY),
                !same,
                "{name} {params:?}"
            );
        }
    }

    /// A zero-byte ACK changes neither the window, nor the controller's state, nor what
    /// later ACKs do, for the controllers that do not declare they hear it.
    #[test]
    fn only_declared_controllers_act_on_acks_without_progress() {
        let ack = |bytes_acked: u64, ms: u64| AckInfo {
            rate: rate(500_000),
            ..ack_at(ms, bytes_acked)
        };
        let mut ignoring = vec![];
        for name in BUILTIN {
            let (mut a, mut wa) = started(name, 20_000);
            if a.capabilities()
                .has(Capabilities::HEARS_ACKS_WITHOUT_PROGRESS)
            {
                continue;
            }
            ignoring.push(*name);
            let (mut b, mut wb) = started(name, 20_000);
            for ms in 1..40 {
                a.on_ack(&mut wa, &ack(0, ms));
                assert_eq!(wa, wb, "{name}: a zero-byte ACK moved the window");
                a.on_ack(&mut wa, &ack(1448, ms));
                b.on_ack(&mut wb, &ack(1448, ms));
                assert_eq!(wa, wb, "{name}: later ACKs act differently");
                assert_eq!(a.state(), b.state(), "{name}: its state moved");
            }
        }
        assert_eq!(
            ignoring,
            [
                "newreno",
                "reno",
                "fixed_burst",
                "tahoe",
                "westwood",
                "westwoodplus",
                "westwood_plus",
                "westwood+",
                "dctcp"
            ]
        );
    }

    /// The built-ins that say they neither pace nor run a send timer answer `None` to both
    /// through ACKs, losses, timers and the recovery's end; the others answer.
    #[test]
    fn only_bbr_fixed_burst_and_wave_pace_or_time() {
        let ack = |ms: u64| AckInfo {
            rate: rate(500_000 + ms * 1000),
            delivered: 50_000 + ms * 1448,
            ..ack_at(ms, 1448)
        };
        for name in BUILTIN {
            let (mut c, mut w) = started(name, u64::MAX);
            let mut answered = false;
            for ms in 1..200 {
                let now = Time(ms * 1_000_000);
                answered |= c.pacing_rate().is_some() || c.send_timer().is_some();
                match ms % 50 {
                    25 => {
                        c.on_congestion_event(&mut w, CongestionEvent::FastRetransmit, now, 20_000)
                    }
                    30 => c.on_recovery_exit(&mut w, now),
                    _ => c.on_ack(&mut w, &ack(ms)),
                }
                if c.send_timer().is_some_and(|t| t <= now) {
                    c.on_send_timer(&mut w, now);
                }
            }
            assert_eq!(
                c.capabilities().has(Capabilities::PACES_OR_TIMES),
                answered,
                "{name}"
            );
        }
    }

    /// Duplicate ACKs change neither the window nor what later ACKs, losses and the
    /// recovery's end do to it, for the built-ins that say they do not hear them; the
    /// Westwoods' bandwidth estimate moves with them.
    #[test]
    fn only_westwood_hears_duplicate_acks_among_built_ins() {
        let ack = ack_at;
        for name in BUILTIN {
            let ((mut a, mut wa), (mut b, mut wb)) = (started(name, 20_000), started(name, 20_000));
            let mut same = true;
            for ms in 1..60 {
                if ms % 3 == 0 {
                    a.on_dup_ack(&mut wa, Time(ms * 1_000_000), 20_000);
                }
                if ms == 30 {
                    for (c, w) in [(&mut a, &mut wa), (&mut b, &mut wb)] {
                        c.on_congestion_event(w, CongestionEvent::FastRetransmit, Time(ms), 20_000);
                        c.on_recovery_exit(w, Time(ms * 1_000_000));
                    }
                }
                a.on_ack(&mut wa, &ack(ms, 1448));
                b.on_ack(&mut wb, &ack(ms, 1448));
                same &= wa == wb && a.metrics(&wa) == b.metrics(&wb);
            }
            assert_eq!(!same, name.starts_with("westwood"), "{name}");
            assert_eq!(
                a.capabilities().has(Capabilities::HEARS_DUP_ACKS),
                !same,
                "{name}"
            );
        }
    }

    /// The built-ins that say they always inflate answer `recovery_inflation` with yes
    /// through ACKs, losses and the recovery's end; fixed_burst and BBR say no.
    #[test]
    fn always_inflating_controllers_say_so() {
        let ack = |ms: u64| AckInfo {
            in_recovery: ms % 50 > 25,
            delivered: 50_000 + ms * 1448,
            ..ack_at(ms, 1448)
        };
        for name in BUILTIN {
            let (mut c, mut w) = started(name, u64::MAX);
            let mut always = true;
            for ms in 1..200 {
                let now = Time(ms * 1_000_000);
                always &= c.recovery_inflation();
                match ms % 50 {
                    25 => {
                        c.on_congestion_event(&mut w, CongestionEvent::FastRetransmit, now, 20_000)
                    }
                    45 => c.on_recovery_exit(&mut w, now),
                    _ => c.on_ack(&mut w, &ack(ms)),
                }
            }
            assert_eq!(
                !c.capabilities().has(Capabilities::SETS_RECOVERY_WINDOW),
                always,
                "{name}"
            );
        }
    }

    /// Sends change neither the window nor what later ACKs, losses and the recovery's
    /// end do to it, nor the pacing and timer answers, for the built-ins that say they do
    /// not hear them (Wave's rounds, at least, move with them).
    #[test]
    fn only_vegas_and_wave_hear_sends_among_built_ins() {
        let mut differed = 0;
        let ack = |ms: u64| AckInfo {
            rtt: Some(tcplab_core::Dur::from_millis(10 + ms % 7)),
            rate: rate(500_000 + ms * 1000),
            delivered: 50_000 + ms * 1448,
            ..ack_at(ms, 1448)
        };
        for name in BUILTIN {
            let ((mut a, mut wa), (mut b, mut wb)) =
                (started(name, u64::MAX), started(name, u64::MAX));
            let mut same = true;
            for ms in 1..300 {
                let now = Time(ms * 1_000_000);
                a.on_sent(now, 1448, 20_000);
                for (c, w) in [(&mut a, &mut wa), (&mut b, &mut wb)] {
                    match ms % 100 {
                        50 => {
                            c.on_congestion_event(w, CongestionEvent::FastRetransmit, now, 20_000)
                        }
                        60 => c.on_recovery_exit(w, now),
                        _ => c.on_ack(w, &ack(ms)),
                    }
                    if c.send_timer().is_some_and(|t| t <= now) {
                        c.on_send_timer(w, now);
                    }
                }
                same &= wa == wb
                    && a.metrics(&wa) == b.metrics(&wb)
                    && (a.pacing_rate(), a.send_timer()) == (b.pacing_rate(), b.send_timer());
            }
            assert!(
                a.capabilities().has(Capabilities::HEARS_SENDS) || same,
                "{name} acts on sends"
            );
            differed += usize::from(!same);
        }
        assert!(
            differed > 0,
            "the test shows a controller that hears sends (Wave)"
        );
    }

    /// `EXPIRES_HEAD` is left out only for controllers that never declare the head lost:
    /// every other built-in says no to heads long overdue, retransmitted or not.
    #[test]
    fn only_vegas_declares_the_head_lost_among_built_ins() {
        for name in BUILTIN {
            let (mut c, _) = started(name, u64::MAX);
            let mut said_yes = false;
            for (sent_ms, tx, dup_ack) in [(0, 1, true), (0, 2, false), (5_000, 1, false)] {
                let head = HeadSegment {
                    now: Time(60_000_000_000),
                    sent: Time(sent_ms * 1_000_000),
                    first_sent: Time::ZERO,
                    transmissions: tx,
                    dup_ack,
                };
                said_yes |= c.retransmit_head(&head);
            }
            let expires = c.capabilities().has(Capabilities::EXPIRES_HEAD);
            assert!(expires || !said_yes, "{name}");
            assert_eq!(expires, *name == "vegas", "{name}");
        }
    }
}
