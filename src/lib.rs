#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Double-base chains, recodings and their cost model ([`zkaccel_dbc`]).
pub use zkaccel_dbc as dbc;
