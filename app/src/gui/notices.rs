//! Failures of the window's own parts (the engine that did not start, a settings file that
//! could not be written, a worker that died, a catalog that did not open), kept until the user
//! dismisses them: on Windows nobody reads stderr.

/// How many are kept: the oldest go first (a disk that fails every write says so once a line).
const KEPT: usize = 8;

#[derive(Default)]
pub struct Notices {
    list: Vec<String>,
    /// Everything said so far: a part that keeps failing the same way is said once, and a
    /// dismissed notice stays dismissed.
    said: std::collections::HashSet<String>,
}

impl Notices {
    /// Say `text` once: the same failure again does not stack up, nor come back dismissed.
    pub fn push(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !self.said.insert(text.clone()) {
            return;
        }
        // The window is the place for it; stderr keeps a copy for a terminal and for logs.
        eprintln!("darkroom: {text}");
        self.list.push(text);
        let excess = self.list.len().saturating_sub(KEPT);
        self.list.drain(..excess);
    }

    pub fn dismiss(&mut self, n: usize) {
        if n < self.list.len() {
            self.list.remove(n);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_said_once_and_stays_dismissed() {
        let mut n = Notices::default();
        n.push("the catalog thread stopped unexpectedly");
        n.push("the catalog thread stopped unexpectedly");
        assert_eq!(n.iter().count(), 1);
        n.dismiss(0);
        n.push("the catalog thread stopped unexpectedly");
        assert!(n.is_empty(), "dismissed, and said already");
    }

    #[test]
    fn only_the_newest_are_kept() {
        let mut n = Notices::default();
        for i in 0..20 {
            n.push(format!("settings not saved: {i}"));
        }
        let kept: Vec<_> = n.iter().collect();
        assert_eq!(kept.len(), KEPT);
        assert_eq!(kept.last(), Some(&"settings not saved: 19"));
    }
}
