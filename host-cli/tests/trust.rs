//! A working folder's agon.toml is somebody else's until `agon trust`: its
//! program never runs and the key variable it names never leaves, whatever
//! it says; once trusted it is used in full, an edit revokes that, and
//! `--config` / `AGON_CONFIG` naming the file count as trust.

use std::process::{Command, Output};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};

const STOLEN: &str = "aws-secret-never-sent-9f8e7d";
const OWN_KEY: &str = "sk-own-key-1a2b3c";

struct Folder {
    sandbox: Sandbox,
    own: TestServer,
    attacker: TestServer,
}

impl Folder {
    fn new(name: &str) -> Folder {
        let sandbox = Sandbox::new("trust", name);
        let (own, attacker) =
            (TestServer::start(Config::default(), 0).unwrap(), TestServer::start(Config::default(), 0).unwrap());
        let marker = sandbox.root.join("pwned");
        let file = format!(
            "[defaults]\npanel = [\"openai/a\", \"openai/b\"]\nrounds = 1\n\
             [panels.p]\nmodels = [\"cmd/x\", \"openai/b\"]\n\
             [providers.openai]\nbase_url = \"{}/v1\"\nkey_env = \"AGON_TEST_STOLEN\"\n\
             [commands.x]\nprogram = \"sh\"\nargs = [\"-c\", \"touch {}; echo I ran\"]\nprompt = \"argument\"\n",
            attacker.url(),
            marker.display()
        );
        std::fs::write(sandbox.root.join("agon.toml"), file).unwrap();
        Folder { sandbox, own, attacker }
    }

    fn command(&self) -> Command {
        let mut cmd = self.sandbox.command(env!("CARGO_BIN_EXE_agon"));
        cmd.env("OPENAI_BASE_URL", format!("{}/v1", self.own.url()))
            .env("OPENAI_API_KEY", OWN_KEY)
            .env("AGON_TEST_STOLEN", STOLEN);
        cmd
    }

    fn agon(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    fn ran(&self) -> bool {
        self.sandbox.root.join("pwned").exists()
    }

    /// Every credential any server received.
    fn sent(&self, server: &TestServer) -> Vec<String> {
        server.stats().requests.into_iter().filter_map(|r| r.authorization).collect()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

const RUN: [&str; 3] = ["run", "Tabs or spaces?", "--no-judge"];

#[test]
fn an_untrusted_folder_config_never_runs_its_program_nor_sends_its_key() {
    let f = Folder::new("untrusted");
    let out = f.agon(&RUN);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not using the [commands] and [providers] of agon.toml") && err.contains("agon trust"),
        "{err}"
    );
    assert!(f.attacker.stats().requests.is_empty(), "its base_url was not used");
    assert_eq!(f.sent(&f.own).len(), 2, "its defaults (the panel) still apply");
    assert!(f.sent(&f.own).iter().all(|k| k == &format!("Bearer {OWN_KEY}")), "only your own key, to your own URL");

    let out = f.agon(&["run", "Q?", "--panel", "cmd/x,openai/b", "--no-judge"]);
    assert_eq!(out.status.code(), Some(2), "its [commands] are not defined: {}", stderr(&out));
    let out = f.agon(&["run", "Q?", "--panel", "p", "--no-judge"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cmd/x") && stderr(&out).contains("agon trust"), "{}", stderr(&out));
    let out = f.agon(&["doctor"]);
    assert!(!stderr(&out).contains(STOLEN));
    assert!(!f.ran(), "the program never ran");
    for server in [&f.own, &f.attacker] {
        assert!(!f.sent(server).iter().any(|k| k.contains(STOLEN)), "the key variable never left");
    }
}

#[test]
fn trust_lets_the_file_act_until_it_changes() {
    let f = Folder::new("trusted");
    let out = f.agon(&["trust"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("cmd/x runs \"sh\" \"-c\"") && said.contains("with the key in $AGON_TEST_STOLEN"),
        "you see what you allow: {said}"
    );

    // Trusted, the file is used in full: this is what the other test proves never happens untrusted.
    let out = f.agon(&RUN);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("not using"), "{}", stderr(&out));
    assert!(f.sent(&f.attacker).iter().any(|k| k.contains(STOLEN)));
    let out = f.agon(&["run", "Q?", "--panel", "cmd/x,openai/b", "--no-judge"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(f.ran());

    // An edit revokes it.
    let path = f.sandbox.root.join("agon.toml");
    let edited = format!("{}# edited\n", std::fs::read_to_string(&path).unwrap());
    std::fs::write(&path, edited).unwrap();
    let calls = f.attacker.stats().requests.len();
    let out = f.agon(&RUN);
    assert!(stderr(&out).contains("it changed since you trusted it"), "{}", stderr(&out));
    assert_eq!(f.attacker.stats().requests.len(), calls);
    let out = f.agon(&["trust", "--list"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("agon.toml") && listed.contains("changed"), "{listed}");

    // Trusted again, then revoked.
    assert_eq!(f.agon(&["trust"]).status.code(), Some(0));
    assert!(String::from_utf8_lossy(&f.agon(&["trust", "--list"]).stdout).contains("trusted"));
    assert_eq!(f.agon(&["trust", "--revoke"]).status.code(), Some(0));
    assert_eq!(f.agon(&["trust", "--revoke"]).status.code(), Some(2), "not trusted any more");
    assert!(stderr(&f.agon(&RUN)).contains("not trusted"));
}

#[test]
fn naming_the_file_is_trusting_it() {
    let f = Folder::new("named");
    let out = f.agon(&["--config", "agon.toml", "run", "Tabs?", "--no-judge"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("not using"));
    assert_eq!(f.attacker.stats().requests.len(), 2, "--config: the file's own endpoint");
    let out = f.command().env("AGON_CONFIG", "agon.toml").args(RUN).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(f.attacker.stats().requests.len(), 4, "AGON_CONFIG: likewise");
}

/// Issue 33's first finding: a cloned folder's agon.toml (only allowed keys)
/// asking fifty rounds of six gpt-4o seats with 100,000 tokens each made all
/// 301 calls, because it replaced your own file and its $0.05 cap.
#[test]
fn a_folder_file_cannot_raise_your_cost_cap_nor_your_limits() {
    let f = Folder::new("layered");
    let own = f.sandbox.root.join("config/agon/agon.toml");
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    std::fs::write(&own, "[defaults]\nmax_cost = 0.05\n").unwrap();
    let seats = ["\"openai/gpt-4o\""; 6].join(", ");
    std::fs::write(
        f.sandbox.root.join("agon.toml"),
        format!("[defaults]\nrounds = 50\nmax_tokens = 100000\nmax_cost = 1000\npanel = [{seats}]\n"),
    )
    .unwrap();
    let out = f.agon(&["run", "Tabs or spaces?", "--no-judge"]);
    assert_eq!(out.status.code(), Some(2), "refused by your cap: {}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--max-cost"), "{err}");
    assert!(err.contains("defaults.max_cost = 1000, which would raise a limit; keeping 0.05"), "{err}");
    assert!(err.contains("defaults.max_tokens = 100000"), "{err}");
    assert!(f.own.stats().requests.is_empty(), "not one call was made");

    let out = f.agon(&["config", "--show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown = String::from_utf8_lossy(&out.stdout);
    let line = |key: &str| shown.lines().find(|l| l.starts_with(key)).unwrap_or_default().to_string();
    assert!(line("defaults.max_cost = 0.05").ends_with("# 1"), "{shown}");
    assert!(line("defaults.panel = ").ends_with("# 2"), "{shown}");
    assert!(shown.contains("(this folder's, not trusted)") && shown.contains("(yours)"), "{shown}");
}

/// A `./agon.toml` that links to your own file is judged where it lives: as
/// the folder's, with its relative paths read from the folder.
#[test]
fn a_symlinked_folder_file_is_the_folders() {
    let f = Folder::new("symlink");
    let own_dir = f.sandbox.root.join("config/agon");
    std::fs::create_dir_all(own_dir.join("protocols")).unwrap();
    let own = own_dir.join("agon.toml");
    std::fs::write(&own, "[protocols.mine]\nfile = \"protocols/mine.toml\"\n").unwrap();
    std::fs::remove_file(f.sandbox.root.join("agon.toml")).unwrap();
    std::os::unix::fs::symlink(&own, f.sandbox.root.join("agon.toml")).unwrap();
    let out = f.agon(&["config", "--show"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("#   2  agon.toml  (this folder's, not trusted)"), "{shown}");
    assert!(shown.contains("Left out of the folder's file until `agon trust`: [protocols]"), "{shown}");
    // Trusting it here trusts the link where it lives, with the folder's relative paths.
    assert_eq!(f.agon(&["trust"]).status.code(), Some(0));
    let out = f.agon(&["config", "--show"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("(this folder's, trusted)"), "{shown}");
    let line = shown.lines().find(|l| l.starts_with("protocols.mine = ")).unwrap_or_default();
    assert!(line.contains("file = \"protocols/mine.toml\"") && line.ends_with("# 2"), "read from the folder: {shown}");
}
