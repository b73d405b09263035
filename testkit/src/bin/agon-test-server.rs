//! Run the test model server from the command line (browser and SDK tests use it).
//!
//! agon-test-server [--port N] [--config FILE.json] [--max-seconds N]
//!
//! Prints `listening http://127.0.0.1:PORT` when ready, and stops by itself
//! after --max-seconds (default 600).

use std::time::Duration;

use agon_testkit::{Config, TestServer};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut port, mut config, mut max_seconds) = (0u16, Config::default(), 600u64);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| fail(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--port" => port = value.parse().unwrap_or_else(|_| fail("--port takes a number")),
            "--max-seconds" => max_seconds = value.parse().unwrap_or_else(|_| fail("--max-seconds takes a number")),
            "--config" => {
                let text = std::fs::read_to_string(&value).unwrap_or_else(|e| fail(&format!("{value}: {e}")));
                config = serde_json::from_str(&text).unwrap_or_else(|e| fail(&format!("{value}: {e}")));
            }
            other => fail(&format!("unknown flag {other}")),
        }
    }
    let server = TestServer::start(config, port).unwrap_or_else(|e| fail(&e.to_string()));
    println!("listening {}", server.url());
    std::thread::sleep(Duration::from_secs(max_seconds));
}

fn fail(message: &str) -> ! {
    eprintln!("agon-test-server: {message}");
    std::process::exit(2);
}
