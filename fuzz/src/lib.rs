//! Mutation fuzzing of the parsers that read what a camera, another tool or an attacker wrote:
//! the preview parser (every container), the EXIF capture-time and orientation reader, the
//! DC-only JPEG decoder and the XMP merge. Stable Rust, no instrumentation: real files (exiv2's
//! test data, the sample photos, embedded previews cut out of the RAWs) are mutated the way
//! libFuzzer's default mutators do, and each target checks a property beyond "no panic".
//!
//! Every input is a pure function of one 64-bit state (seed choice and mutations alike), so a
//! finding is reproduced from the state alone; the runner keeps each worker's current state in
//! a file, which is what survives an abort.

pub mod mutate;
pub mod runner;
pub mod seeds;
pub mod targets;
