//! Merging layers: the higher layer's `Some` wins, field by field.

/// One layer over a lower one.
pub trait Combine {
    /// `self` over `lower`: what `self` sets wins, the rest is `lower`'s.
    #[must_use]
    fn combine(self, lower: Self) -> Self;
}

impl<T> Combine for Option<T> {
    fn combine(self, lower: Option<T>) -> Option<T> {
        self.or(lower)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::Combine;
    use crate::config::{Config, Standing};
    use crate::options::{Options, ProtocolChoice};
    use crate::request::DebateRequest;

    #[test]
    fn the_higher_layer_wins_field_by_field() {
        let higher = Options { rounds: Some(2), ..Options::default() };
        let lower = Options { rounds: Some(9), max_tokens: Some(100), ..Options::default() };
        let merged = higher.combine(lower);
        assert_eq!((merged.rounds, merged.max_tokens), (Some(2), Some(100)));
        assert_eq!(merged.temperature, None, "set by neither");
        assert_eq!(Some(1).combine(None), Some(1));
        assert_eq!(None.combine(Some(1)), Some(1));
    }

    /// Built-in < your file < a folder's file < what was asked.
    #[test]
    fn a_flag_beats_the_folder_file_beats_your_file_beats_the_built_in() {
        let parse = |text: &str, path: &str| Config::parse(text, Path::new(path)).unwrap();
        let mut config = Config::default();
        let yours = "[defaults]\nrounds = 3\nmax_tokens = 400\ntemperature = 0.2\nprotocol = \"consensus-check\"\n";
        config.layer(parse(yours, "/home/u/.config/agon/agon.toml"), Standing::Yours);
        let folder = "[defaults]\nrounds = 5\nmax_tokens = 300\n";
        config.layer(parse(folder, "agon.toml"), Standing::Trusted);
        let asked = Options { rounds: Some(7), ..Options::default() };
        let mut request = DebateRequest::new("Q?");
        let merged = config.apply_to_request(&mut request, &asked).unwrap();
        assert_eq!(request.rounds, Some(7), "the flag");
        assert_eq!(request.settings.max_tokens, Some(300), "the folder's file");
        assert_eq!(request.settings.temperature, Some(0.2), "your file");
        assert_eq!(request.protocol, "consensus-check", "your file");
        assert_eq!(request.settings.judge_max_tokens, None, "the built-in: twice max_tokens, decided later");
        assert_eq!(merged.protocol, Some(ProtocolChoice::Named("consensus-check".into())));

        let mut request = DebateRequest::new("Q?");
        config.apply_to_request(&mut request, &Options::default()).unwrap();
        assert_eq!(
            (request.rounds, request.settings.max_tokens),
            (Some(5), Some(300)),
            "nothing asked: the folder's file"
        );
        let mut request = DebateRequest::new("Q?");
        Config::default().apply_to_request(&mut request, &Options::default()).unwrap();
        assert_eq!((request.rounds, request.settings.temperature), (None, None), "no file: the built-in");
    }

    #[test]
    fn bounds_name_the_setting() {
        let bad = Options { temperature: Some(3.0), ..Options::default() };
        assert_eq!(bad.check().unwrap_err().key, "temperature");
        let bad = Options { max_cost: Some(f64::NAN), ..Options::default() };
        assert_eq!(bad.check().unwrap_err().key, "max_cost");
        assert!(Options { timeout: Some(1), ..Options::default() }.check().is_ok());
    }
}
