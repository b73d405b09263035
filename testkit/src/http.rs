//! Just enough HTTP/1.1 for a test server: one thread per connection,
//! keep-alive, Content-Length request bodies, and responses either sized or
//! chunked (streamed), with the chance to cut a stream mid-way.
//!
//! Written here rather than taken from a crate because the test server must
//! hold many requests open at once on purpose: a server crate's worker pool
//! can queue a new connection behind held ones, which is exactly the
//! concurrency a test is trying to observe.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

pub(crate) struct Request {
    pub method: String,
    pub path: String,
    headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    stream: TcpStream,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Accepts connections until dropped.
pub(crate) struct Listener {
    pub addr: std::net::SocketAddr,
    stopping: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// Every connection accepted, so that a stopped server closes them all:
    /// a kept-alive connection must not outlive it, as with a real server gone away.
    connections: Connections,
}

/// The open connections, by a number of their own.
type Connections = Arc<Mutex<std::collections::BTreeMap<u64, TcpStream>>>;

impl Listener {
    pub fn bind(port: u16, handler: impl Fn(Request) + Send + Sync + 'static) -> io::Result<Listener> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let handler = Arc::new(handler);
        let stop = stopping.clone();
        let connections: Connections = Arc::default();
        let open = connections.clone();
        let thread = thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                if let Ok(copy) = stream.try_clone() {
                    open.lock().unwrap_or_else(|e| e.into_inner()).insert(n as u64, copy);
                }
                let (handler, open) = (handler.clone(), open.clone());
                thread::spawn(move || {
                    serve_connection(&stream, &*handler);
                    // The copy kept for a stop must not hold the connection open.
                    let _ = stream.shutdown(Shutdown::Both);
                    open.lock().unwrap_or_else(|e| e.into_inner()).remove(&(n as u64));
                });
            }
        });
        Ok(Listener { addr, stopping, thread: Some(thread), connections })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Release);
        let _ = TcpStream::connect(self.addr); // wake the accept loop
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        for (_, connection) in std::mem::take(&mut *self.connections.lock().unwrap_or_else(|e| e.into_inner())) {
            let _ = connection.shutdown(Shutdown::Both);
        }
    }
}

fn serve_connection(stream: &TcpStream, handler: &dyn Fn(Request)) {
    // Without it, an answer written in two pieces (head, then body) can wait out
    // the client's delayed ACK (~40 ms): Nagle holds the second piece back. Real
    // providers' servers send at once; so must the one that stands in for them.
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else { return };
    let mut reader = BufReader::new(read_half);
    while let Some(request) = read_request(&mut reader, stream) {
        let close = request.header("Connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        handler(request);
        if close {
            break;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>, stream: &TcpStream) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Content-Length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request { method, path, headers, body, stream: stream.try_clone().ok()? })
}

/// Close the connection without answering, as a crashed or restarting upstream would.
pub(crate) fn drop_connection(request: Request) {
    let _ = request.stream.shutdown(Shutdown::Both);
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// Write a response. With `len`, a sized body; without, a chunked stream, one
/// chunk per read of `body` — and if `body` fails mid-way, the connection is
/// cut without the final chunk, as a broken upstream would.
pub(crate) fn respond(
    request: Request,
    status: u16,
    headers: &[(&str, &str)],
    content_type: &str,
    mut body: Box<dyn Read + Send>,
    len: Option<usize>,
) {
    let mut out = request.stream;
    let mut head = format!("HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\n", reason(status));
    for (k, v) in [
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Allow-Headers", "authorization, content-type"),
        ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
    ]
    .iter()
    .chain(headers)
    {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    match len {
        Some(n) => head.push_str(&format!("Content-Length: {n}\r\n\r\n")),
        None => head.push_str("Transfer-Encoding: chunked\r\n\r\n"),
    }
    if out.write_all(head.as_bytes()).is_err() {
        return;
    }
    let mut buf = [0u8; 8192];
    loop {
        match body.read(&mut buf) {
            Ok(0) => {
                if len.is_none() {
                    let _ = out.write_all(b"0\r\n\r\n");
                }
                let _ = out.flush();
                return;
            }
            Ok(n) => {
                let written = match len {
                    Some(_) => out.write_all(&buf[..n]),
                    None => out
                        .write_all(format!("{n:x}\r\n").as_bytes())
                        .and_then(|_| out.write_all(&buf[..n]))
                        .and_then(|_| out.write_all(b"\r\n")),
                };
                if written.and_then(|_| out.flush()).is_err() {
                    return;
                }
            }
            Err(_) => {
                let _ = out.shutdown(Shutdown::Both);
                return;
            }
        }
    }
}
