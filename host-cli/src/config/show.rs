//! `agon config --show`: the merged configuration, each setting with the
//! file it came from, and what a folder's file was not allowed to change.

use std::fmt::Write;

use super::Config;

/// The merged configuration as TOML-like lines: `key = value  # N`, where N
/// is the file's number in the list of layers above them.
pub fn show(config: &Config) -> String {
    let mut out = String::new();
    if config.layers.is_empty() {
        out.push_str("# No agon.toml here nor in your config folder: agon's built-in defaults apply.\n");
        if let Some(own) = super::user_config_file() {
            let _ = writeln!(out, "# Yours would be {}.", own.display());
        }
        return out;
    }
    out.push_str("# agon's configuration, in layers (each over the ones before it):\n");
    for (i, layer) in config.layers.iter().enumerate() {
        let _ = writeln!(out, "#   {}  {}  ({})", i + 1, layer.path.display(), layer.standing.describe());
    }
    if let Some(u) = &config.untrusted {
        if !u.withheld.is_empty() {
            let _ = writeln!(out, "# Left out of the folder's file until `agon trust`: {}.", u.withheld.join(", "));
        }
        for n in &config.narrowed {
            let _ = writeln!(out, "# The folder's file asks {n}.");
        }
    }
    out.push('\n');
    let values = toml::Value::try_from(config).unwrap_or(toml::Value::Table(Default::default()));
    let lines: Vec<(String, usize)> = config
        .origin
        .iter()
        .map(|(key, &layer)| {
            let dotted = key.iter().map(|k| quoted(k)).collect::<Vec<_>>().join(".");
            let value = key.iter().try_fold(&values, |v, k| v.get(k));
            let text = match value {
                Some(v) => format!("{dotted} = {v}"),
                None if key == &["defaults", "rounds"] && config.rounds_ceiling.is_some() => format!(
                    "{dotted} = at most {} (the protocol's own default where that is lower)",
                    config.rounds_ceiling.unwrap_or_default()
                ),
                None => format!("{dotted} (unset)"),
            };
            (text, layer + 1)
        })
        .collect();
    let width = lines.iter().map(|(t, _)| t.chars().count()).max().unwrap_or(0).min(72);
    for (text, layer) in lines {
        let _ = writeln!(out, "{text:<width$}  # {layer}");
    }
    out
}

/// A key as TOML writes it: bare when it can be, quoted otherwise.
fn quoted(key: &str) -> String {
    if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        key.to_string()
    } else {
        format!("{:?}", key)
    }
}
