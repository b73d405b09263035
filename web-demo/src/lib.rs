//! # agon-web-demo: a council that runs entirely in a browser page
//!
//! agon-core compiled to `wasm32-unknown-unknown` with wasm-bindgen, and the
//! host loop around it in Rust: the page's own `fetch` calls an
//! OpenAI-compatible endpoint, streams each reply, and runs every request the
//! core releases together at the same time. No server of ours in between.
//!
//! The page (`www/`) only fills a form, shows the events it is handed and
//! offers downloads; all debate logic stays in the core.
//!
//! A seat whose model is `human/NAME` is a person: the page asks them in the
//! seat's card instead of calling the endpoint.
//!
//! On the host target only the pure parts are built (form → spec, the
//! request, what a person is asked), so they are tested natively. What is
//! sent and how replies are read is agon-wire's, as in the CLI and the SDKs.

pub mod chat;
pub mod form;
pub mod human;

#[cfg(target_arch = "wasm32")]
mod council;
#[cfg(target_arch = "wasm32")]
mod fetch;

#[cfg(target_arch = "wasm32")]
pub use council::{
    Council, check_document, document_info, markdown_to_html, phase_heading, protocols, role_fields, spec_from_form,
};
