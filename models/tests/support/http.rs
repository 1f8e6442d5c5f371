//! A small HTTP/1.1 server on 127.0.0.1 for the model manager's tests: each path answers in a
//! chosen way (whole, cut short, lying about its length, unsized), byte ranges are honoured, and
//! every request is logged. One connection at a time, at most 64, so it always stops.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the server answers one path.
#[derive(Clone)]
pub enum Serve {
    /// The file, honouring byte ranges.
    Whole(Vec<u8>),
    /// The first answer declares the whole length and closes after `cut` bytes; later ones
    /// honour ranges.
    CutFirst { bytes: Vec<u8>, cut: usize },
    /// Declares `declared` bytes and then waits: the client must not wait for the body.
    Declares { bytes: Vec<u8>, declared: usize },
    /// No length at all: the body just keeps coming until the connection closes.
    Unsized(Vec<u8>),
}

#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub range_from: Option<u64>,
}

pub struct Server {
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn start(routes: HashMap<String, Serve>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen2, stop2) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut answered: HashMap<String, usize> = HashMap::new();
            // Bounded: a test makes a handful of requests.
            for stream in listener.incoming().take(64) {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
                let Some(req) = read_request(&stream) else {
                    continue;
                };
                seen2.lock().expect("log").push(req.clone());
                let n = answered.entry(req.path.clone()).or_default();
                *n += 1;
                respond(stream, routes.get(&req.path), req.range_from, *n);
            }
        });
        Server {
            base: format!("http://{addr}"),
            seen,
            stop,
            addr,
            thread: Some(thread),
        }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("log").clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn read_request(stream: &TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut range_from = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 || h == "\r\n" {
            break;
        }
        if let Some((name, value)) = h.split_once(':')
            && name.eq_ignore_ascii_case("range")
        {
            range_from = value
                .trim()
                .strip_prefix("bytes=")
                .and_then(|r| r.trim_end_matches('-').parse().ok());
        }
    }
    Some(Seen { path, range_from })
}

fn respond(mut stream: TcpStream, route: Option<&Serve>, range_from: Option<u64>, nth: usize) {
    let ranged = |bytes: &[u8]| -> (String, Vec<u8>) {
        match range_from {
            Some(from) if (from as usize) < bytes.len() => (
                format!(
                    "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {from}-{}/{}\r\n",
                    bytes.len() - from as usize,
                    bytes.len() - 1,
                    bytes.len()
                ),
                bytes[from as usize..].to_vec(),
            ),
            Some(_) => (
                "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Length: 0\r\n".into(),
                Vec::new(),
            ),
            None => (
                format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n", bytes.len()),
                bytes.to_vec(),
            ),
        }
    };
    let (head, body, declared_wait) = match route {
        None => (
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n".to_owned(),
            Vec::new(),
            false,
        ),
        Some(Serve::Whole(bytes)) => {
            let (h, b) = ranged(bytes);
            (h, b, false)
        }
        Some(Serve::CutFirst { bytes, cut }) if nth == 1 => (
            format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n", bytes.len()),
            bytes[..*cut].to_vec(),
            false,
        ),
        Some(Serve::CutFirst { bytes, .. }) => {
            let (h, b) = ranged(bytes);
            (h, b, false)
        }
        Some(Serve::Declares { bytes, declared }) => (
            format!("HTTP/1.1 200 OK\r\nContent-Length: {declared}\r\n"),
            bytes.clone(),
            true,
        ),
        Some(Serve::Unsized(bytes)) => ("HTTP/1.1 200 OK\r\n".to_owned(), bytes.clone(), false),
    };
    let _ = stream.write_all(format!("{head}Connection: close\r\n\r\n").as_bytes());
    let _ = stream.flush();
    let send = move |mut stream: TcpStream| {
        let _ = stream.write_all(&body);
        let _ = stream.flush();
    };
    if declared_wait {
        // Hold the body back for far longer than a refusal takes, on a thread of its own so
        // the server goes on answering: a client that waits for it is told apart by how long
        // it took, with no product timeout near.
        std::thread::spawn(move || {
            std::thread::sleep(BODY_HELD);
            send(stream);
        });
    } else {
        send(stream);
    }
}

/// How long a `Serve::Declares` body is held back.
pub const BODY_HELD: Duration = Duration::from_secs(30);
