//! A server of fixed documents by path, on 127.0.0.1: what a test needs to
//! stand in for a static site (models.dev's `api.json`). Any other path is a
//! 404; every request is counted.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::http;

/// A running file server; dropping it stops it.
pub struct FileServer {
    pub addr: SocketAddr,
    served: Arc<AtomicUsize>,
    _listener: http::Listener,
}

impl FileServer {
    /// Serve `files` (path, status, body) on an ephemeral port.
    pub fn start(files: Vec<(String, u16, Vec<u8>)>) -> io::Result<FileServer> {
        let served = Arc::new(AtomicUsize::new(0));
        let count = served.clone();
        let listener = http::Listener::bind(0, move |request| {
            count.fetch_add(1, Ordering::SeqCst);
            let (status, body) = files
                .iter()
                .find(|(path, _, _)| *path == request.path)
                .map_or((404, b"not found".to_vec()), |(_, status, body)| (*status, body.clone()));
            let len = body.len();
            http::respond(request, status, &[], "application/json", Box::new(io::Cursor::new(body)), Some(len));
        })?;
        Ok(FileServer { addr: listener.addr, served, _listener: listener })
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests answered so far.
    pub fn served(&self) -> usize {
        self.served.load(Ordering::SeqCst)
    }
}
