//! Running vendor code at arm's length: the probe and engine builds run in a child process (the
//! same binary, a hidden subcommand) under a time limit, so a provider that crashes, hangs or
//! exits is a recorded failure and the app carries on.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How to start a worker: the program (normally this executable) and the environment it needs
/// beyond the inherited one (the runtime library the parent chose, the test provider's
/// settings).
#[derive(Debug, Clone)]
pub struct Launcher {
    pub program: PathBuf,
    /// Arguments before the worker's own (the hidden subcommand's name).
    pub prefix: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// How a worker ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChildEnd {
    /// Exit 0; its last line of standard output.
    Finished { stdout: String },
    /// It reported an error in its own words (exit 3 with `{"error": ...}`).
    Failed { reason: String },
    /// It died some other way: a signal, an abort, an unexpected exit status.
    Crashed { reason: String },
    /// It ran past its limit and was killed.
    TimedOut { after_s: u64 },
    /// The parent was asked to stop and killed it.
    Cancelled,
}

/// The exit status a worker uses when it reports an error as JSON on stdout.
pub const REPORTED_ERROR: i32 = 3;

/// The JSON line a worker prints when it fails in an orderly way.
#[derive(Debug, Serialize, Deserialize)]
pub struct WorkerError {
    pub error: String,
}

/// Run `launcher` with `args`, killing it after `limit` or when `stop` is set.
pub fn run(launcher: &Launcher, args: &[String], limit: Duration, stop: &AtomicBool) -> ChildEnd {
    let mut cmd = Command::new(&launcher.program);
    cmd.args(&launcher.prefix)
        .args(args)
        .envs(launcher.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return ChildEnd::Crashed {
                reason: format!("cannot start {}: {e}", launcher.program.display()),
            };
        }
    };
    // Drain both pipes on their own threads: a chatty vendor library must not fill a pipe and
    // stall the child we are timing.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::Builder::new()
            .name("darkroom-child-pipe".into())
            .spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_end(&mut buf);
                }
                String::from_utf8_lossy(&buf).into_owned()
            })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(format!("cannot wait for worker: {e}")),
        }
        if stop.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return ChildEnd::Cancelled;
        }
        if started.elapsed() >= limit {
            let _ = child.kill();
            let _ = child.wait();
            return ChildEnd::TimedOut {
                after_s: limit.as_secs(),
            };
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = out.ok().and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.ok().and_then(|h| h.join().ok()).unwrap_or_default();
    let status = match status {
        Ok(s) => s,
        Err(reason) => return ChildEnd::Crashed { reason },
    };
    let last_line = |text: &str| {
        text.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    if status.success() {
        return ChildEnd::Finished {
            stdout: last_line(&stdout),
        };
    }
    if status.code() == Some(REPORTED_ERROR)
        && let Ok(e) = serde_json::from_str::<WorkerError>(&last_line(&stdout))
    {
        return ChildEnd::Failed { reason: e.error };
    }
    let tail = last_line(&stderr);
    ChildEnd::Crashed {
        reason: if tail.is_empty() {
            describe(&status)
        } else {
            format!("{}: {tail}", describe(&status))
        },
    }
}

/// "killed by signal 6 (SIGABRT)", "exited with status 1".
fn describe(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "ended without a status".to_owned(),
    }
}

impl ChildEnd {
    /// One line for the probe record ("timed out after 5 s").
    pub fn reason(&self) -> String {
        match self {
            ChildEnd::Finished { .. } => "finished".to_owned(),
            ChildEnd::Failed { reason } | ChildEnd::Crashed { reason } => reason.clone(),
            ChildEnd::TimedOut { after_s } => format!("timed out after {after_s} s"),
            ChildEnd::Cancelled => "cancelled".to_owned(),
        }
    }
}
