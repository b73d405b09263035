//! The HTTP sessions `agon mcp --http` keeps: at most so many at once, at
//! most so many per client address, and each one closed once it has been idle
//! (no request in flight, none arriving) for the idle timeout. rmcp's own
//! session store does the work; this one counts, refuses and sweeps.
//!
//! rmcp's own idle timer is off: it would close a session whose debate is
//! still running but has sent no progress for a while (one slow model call).
//! Here a request in flight keeps its session.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};

/// How many sessions, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub total: usize,
    pub per_client: usize,
    pub idle: Duration,
}

tokio::task_local! {
    /// The client of the HTTP request being served: set around each request,
    /// read when that request opens a session.
    pub static CLIENT: Arc<Client>;
}

/// One request's client, and why a session it asked for was refused.
pub struct Client {
    pub address: IpAddr,
    pub refused: Mutex<Option<String>>,
}

#[derive(Debug)]
pub enum Error {
    Full(String),
    Inner(LocalSessionManagerError),
}

impl std::error::Error for Error {}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Full(why) => f.write_str(why),
            Error::Inner(e) => e.fmt(f),
        }
    }
}

impl From<LocalSessionManagerError> for Error {
    fn from(e: LocalSessionManagerError) -> Error {
        Error::Inner(e)
    }
}

struct Entry {
    client: IpAddr,
    last_seen: Instant,
    /// Requests whose answer is still streaming.
    busy: usize,
}

#[derive(Default)]
struct Table {
    /// Sessions counted, including those being created.
    open: usize,
    per_client: HashMap<IpAddr, usize>,
    entries: HashMap<SessionId, Entry>,
}

impl Table {
    fn release(&mut self, client: IpAddr) {
        self.open -= 1;
        if let Some(n) = self.per_client.get_mut(&client) {
            *n -= 1;
            if *n == 0 {
                // Forgotten, so a flood from many addresses leaves nothing behind.
                self.per_client.remove(&client);
            }
        }
    }

    fn touch(&mut self, id: &SessionId) {
        if let Some(e) = self.entries.get_mut(id) {
            e.last_seen = Instant::now();
        }
    }
}

pub struct BoundedSessions {
    inner: LocalSessionManager,
    limits: Limits,
    /// Shared with the guards of requests in flight.
    table: Arc<Mutex<Table>>,
}

impl BoundedSessions {
    /// The store, and its sweeper running on the current runtime.
    pub fn start(limits: Limits) -> Arc<BoundedSessions> {
        let mut inner = LocalSessionManager::default();
        let mut config = SessionConfig::default();
        config.keep_alive = None;
        inner.session_config = config;
        let sessions = Arc::new(BoundedSessions { inner, limits, table: Arc::default() });
        tokio::spawn(sweep(Arc::downgrade(&sessions)));
        sessions
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        lock(&self.table)
    }

    /// Counts a new session for `client`, or says why not.
    fn reserve(&self, client: IpAddr) -> Result<(), String> {
        let mut t = self.table();
        let Limits { total, per_client, idle } = self.limits;
        let idle = idle.as_secs();
        if t.open >= total {
            return Err(format!(
                "agon mcp: {} sessions are open, the most this server keeps (--max-sessions {total}); close one (HTTP DELETE) or wait until one has been idle {idle} s",
                t.open
            ));
        }
        let mine = t.per_client.get(&client).copied().unwrap_or(0);
        if mine >= per_client {
            return Err(format!(
                "agon mcp: {mine} sessions are open from {client}, the most one client keeps (--max-sessions-per-client {per_client}); close one (HTTP DELETE) or wait until one has been idle {idle} s"
            ));
        }
        t.open += 1;
        *t.per_client.entry(client).or_default() += 1;
        Ok(())
    }

    /// A guard that keeps the session busy while a request's answer streams.
    fn busy(&self, id: &SessionId) -> Busy {
        if let Some(e) = self.table().entries.get_mut(id) {
            e.busy += 1;
            e.last_seen = Instant::now();
        }
        Busy { table: Arc::downgrade(&self.table), id: id.clone() }
    }

    /// Closes the sessions idle for the timeout; they are dropped from memory.
    async fn expire(&self) {
        let now = Instant::now();
        let idle: Vec<SessionId> = self
            .table()
            .entries
            .iter()
            .filter(|(_, e)| e.busy == 0 && now.duration_since(e.last_seen) >= self.limits.idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in idle {
            let _ = self.close_session(&id).await;
        }
    }
}

async fn sweep(sessions: Weak<BoundedSessions>) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let Some(sessions) = sessions.upgrade() else { return };
        sessions.expire().await;
    }
}

/// A request in flight on a session; dropped when its answer is done (or the client left).
struct Busy {
    table: Weak<Mutex<Table>>,
    id: SessionId,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(table) = self.table.upgrade()
            && let Some(e) = lock(&table).entries.get_mut(&self.id)
        {
            e.busy = e.busy.saturating_sub(1);
            e.last_seen = Instant::now();
        }
    }
}

/// A poisoned lock still holds consistent counts: every change is one statement.
fn lock(table: &Mutex<Table>) -> MutexGuard<'_, Table> {
    table.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The requesting client's address, or an unspecified one outside a request.
fn client() -> IpAddr {
    CLIENT.try_with(|c| c.address).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

impl SessionManager for BoundedSessions {
    type Error = Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Error> {
        let client = client();
        if let Err(why) = self.reserve(client) {
            // The HTTP layer turns this into a 503 with the reason.
            let _ = CLIENT.try_with(|c| *c.refused.lock().unwrap_or_else(PoisonError::into_inner) = Some(why.clone()));
            return Err(Error::Full(why));
        }
        match self.inner.create_session().await {
            Ok((id, transport)) => {
                let entry = Entry { client, last_seen: Instant::now(), busy: 0 };
                self.table().entries.insert(id.clone(), entry);
                Ok((id, transport))
            }
            Err(e) => {
                self.table().release(client);
                Err(e.into())
            }
        }
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Error> {
        self.table().touch(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Error> {
        // Called again by rmcp when the closed session's worker ends: only the first counts.
        let entry = self.table().entries.remove(id);
        if let Some(e) = entry {
            self.table().release(e.client);
        }
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        let busy = self.busy(id);
        let stream = self.inner.create_stream(id, message).await?;
        // The guard lives as long as the answer's stream.
        Ok(stream.map(move |m| {
            let _ = &busy;
            m
        }))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Error> {
        self.table().touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        // A client listening for server messages is not busy: agon sends none
        // outside a request's answer, so an idle listener still expires.
        self.table().touch(id);
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Error> {
        self.table().touch(id);
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
