//! The one shape every piece of background work has: a named thread that reports through a
//! bounded channel and wakes the window after each report. The window polls each [`Task`] in
//! `logic` (never in `ui`, which a hidden window does not get); a channel that closes before
//! the answer came means the worker died, and says so in words the window can show.

use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};

/// Wakes the window from a worker (a repaint request, which runs `logic` even when hidden).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// The worker's end: every report wakes the window.
pub struct Reporter<T> {
    tx: SyncSender<T>,
    wake: Waker,
}

impl<T> Reporter<T> {
    /// Blocks while the window is behind (backpressure). False once the window let go.
    pub fn send(&self, value: T) -> bool {
        let ok = self.tx.send(value).is_ok();
        (self.wake)();
        ok
    }

    /// For reports that may be dropped when the window is behind (progress).
    pub fn try_send(&self, value: T) -> bool {
        let ok = self.tx.try_send(value).is_ok();
        if ok {
            (self.wake)();
        }
        ok
    }

    /// Sends without waking: for a stream that wakes once a batch.
    pub fn send_quietly(&self, value: T) -> bool {
        self.tx.send(value).is_ok()
    }

    pub fn wake(&self) {
        (self.wake)();
    }
}

/// What one poll found.
pub struct Drained<T> {
    pub items: Vec<T>,
    /// The worker has ended (its channel closed); what it sent is all in `items` by now.
    pub ended: bool,
}

/// The window's end of a background task.
pub struct Task<T> {
    name: &'static str,
    rx: Receiver<T>,
    /// Why the thread never started, if it did not.
    not_started: Option<String>,
}

impl<T: Send + 'static> Task<T> {
    /// Run `work` on a thread named `name`, reporting through a channel of `capacity`.
    pub fn spawn(
        name: &'static str,
        capacity: usize,
        wake: Waker,
        work: impl FnOnce(Reporter<T>) + Send + 'static,
    ) -> Self {
        let (tx, rx) = sync_channel(capacity);
        let reporter = Reporter { tx, wake };
        let not_started = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || work(reporter))
            .err()
            .map(|e| format!("cannot start {name}: {e}"));
        Task {
            name,
            rx,
            not_started,
        }
    }
}

impl<T> Task<T> {
    /// The window's end of a channel a worker of its own (not spawned here) reports on.
    pub fn from_receiver(name: &'static str, rx: Receiver<T>, not_started: Option<String>) -> Self {
        Task {
            name,
            rx,
            not_started,
        }
    }

    /// Up to `max` reports, without blocking (bounded, so one frame stays short).
    pub fn drain(&self, max: usize) -> Drained<T> {
        let mut items = Vec::new();
        while items.len() < max {
            match self.rx.try_recv() {
                Ok(v) => items.push(v),
                Err(TryRecvError::Empty) => {
                    return Drained {
                        items,
                        ended: false,
                    };
                }
                Err(TryRecvError::Disconnected) => return Drained { items, ended: true },
            }
        }
        Drained {
            items,
            ended: false,
        }
    }

    /// A task that answers once: None while it works, then its answer, or why there is none.
    pub fn answer(&self) -> Option<Result<T, String>> {
        match self.rx.try_recv() {
            Ok(v) => Some(Ok(v)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(self.died())),
        }
    }

    /// The words for a worker that ended without its answer.
    pub fn died(&self) -> String {
        self.not_started
            .clone()
            .unwrap_or_else(|| format!("{} stopped unexpectedly", self.name))
    }
}

/// Take the answer of the one-shot task in `slot`, emptying the slot once it answered.
pub fn take_answer<T>(slot: &mut Option<Task<T>>) -> Option<Result<T, String>> {
    let answer = slot.as_ref()?.answer()?;
    *slot = None;
    Some(answer)
}

/// A value a worker overwrites and the window reads when it draws: progress that must never
/// make the worker wait for the window.
pub struct Latest<T>(Arc<Mutex<T>>);

impl<T> Clone for Latest<T> {
    fn clone(&self) -> Self {
        Latest(Arc::clone(&self.0))
    }
}

impl<T: Default> Default for Latest<T> {
    fn default() -> Self {
        Latest(Arc::new(Mutex::new(T::default())))
    }
}

impl<T> Latest<T> {
    /// Change the value in place. A worker that panicked while holding it left a value that is
    /// still readable; progress is never worth a second panic.
    pub fn update(&self, f: impl FnOnce(&mut T)) {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard);
    }

    pub fn read<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        let guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        f(&guard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_wake() -> Waker {
        Arc::new(|| {})
    }

    fn wait<T>(task: &Task<T>) -> Result<T, String> {
        loop {
            if let Some(a) = task.answer() {
                return a;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    #[test]
    fn a_one_shot_task_answers_once() {
        let task = Task::spawn("test-answer", 1, no_wake(), |r| {
            r.send(42);
        });
        assert_eq!(wait(&task), Ok(42));
    }

    #[test]
    fn a_worker_that_dies_is_reported_by_name() {
        let task: Task<u8> = Task::spawn("test-dies", 1, no_wake(), |_r| {
            // Dropping the reporter without an answer: the panic's stand-in.
        });
        let err = wait(&task).expect_err("no answer");
        assert!(err.contains("test-dies stopped unexpectedly"), "{err}");
    }

    #[test]
    fn draining_is_bounded_and_sees_the_end() {
        let task = Task::spawn("test-stream", 16, no_wake(), |r| {
            for i in 0..10 {
                r.send(i);
            }
        });
        let mut seen = Vec::new();
        loop {
            let d = task.drain(3);
            assert!(d.items.len() <= 3);
            seen.extend(d.items);
            if d.ended {
                break;
            }
        }
        assert_eq!(seen, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn latest_keeps_the_newest_value() {
        let slot: Latest<u32> = Latest::default();
        let writer = slot.clone();
        writer.update(|v| *v = 1);
        writer.update(|v| *v = 2);
        assert_eq!(slot.read(|v| *v), 2);
    }
}
