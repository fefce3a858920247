//! Windowed running maximum in constant space (Kathleen Nichols' algorithm, the filter
//! BBR uses for BtlBw): the best, second-best and third-best samples of the window, each
//! from a later sub-window, so the maximum can expire without storing every sample.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    t: u64,
    v: u64,
}

/// Maximum of the values seen over the last `window` time units (e.g. round trips).
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowedMax {
    s: [Entry; 3],
}

impl WindowedMax {
    /// The current maximum (0 before any sample).
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    fn reset(&mut self, e: Entry) -> u64 {
        self.s = [e; 3];
        e.v
    }

    /// Adds `v` observed at time `t` (non-decreasing) and returns the windowed maximum.
    pub fn update(&mut self, window: u64, t: u64, v: u64) -> u64 {
        let e = Entry { t, v };
        // A new overall maximum, or everything has aged out: restart from this sample.
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > window {
            return self.reset(e);
        }
        if v >= self.s[1].v {
            self.s[1] = e;
            self.s[2] = e;
        } else if v >= self.s[2].v {
            self.s[2] = e;
        }
        let age = t.saturating_sub(self.s[0].t);
        if age > window {
            // The best expired: promote the others (twice if the second expired too).
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = e;
            if t.saturating_sub(self.s[0].t) > window {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
            }
        } else if self.s[1] == self.s[0] && age > window / 4 {
            // A quarter of the window passed with no second choice: take this one.
            self.s[1] = e;
            self.s[2] = e;
        } else if self.s[2] == self.s[1] && age > window / 2 {
            self.s[2] = e;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_max_for_the_window_then_expires_it() {
        let mut f = WindowedMax::default();
        assert_eq!(f.update(10, 0, 100), 100);
        for t in 1..=10 {
            assert_eq!(f.update(10, t, 50), 100, "t={t}: within the window");
        }
        assert_eq!(f.update(10, 11, 50), 50, "the 100 is 11 rounds old");
        assert_eq!(f.update(10, 12, 70), 70, "a new max replaces at once");
    }

    #[test]
    fn falls_back_to_the_best_recent_sample() {
        let mut f = WindowedMax::default();
        f.update(10, 0, 100);
        f.update(10, 3, 80);
        f.update(10, 6, 60);
        for t in 7..=10 {
            f.update(10, t, 10);
        }
        assert_eq!(
            f.update(10, 11, 10),
            80,
            "after the 100 expires, the 80 from t=3"
        );
        assert_eq!(f.update(10, 14, 10), 60, "then the 60 from t=6");
    }
}
