//! Failures of the window's own parts (the engine that did not start, a settings file that
//! could not be written, a worker that died, a catalog that did not open), kept until the user
//! dismisses them: on Windows nobody reads stderr.

/// How many are kept: the oldest go first (a disk that fails every write says so once a line).
const KEPT: usize = 8;

#[derive(Default)]
pub struct Notices {
    list: Vec<String>,
}

impl Notices {
    /// Say `text` once: the same failure again does not stack up.
    pub fn push(&mut self, text: impl Into<String>) {
        let text = text.into();
        if self.list.contains(&text) {
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
