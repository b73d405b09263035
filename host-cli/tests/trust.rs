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
