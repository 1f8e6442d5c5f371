//! Ingest (issue 27, begun): bringing a card's photos onto the photographer's drives. `naming`
//! turns a pattern ("{date}/{job}_{seq:4}") and a photo's facts into its new name, collisions
//! resolved without overwriting; `copy` reads a file once and writes it to every destination,
//! each copy verified by its hash read back before it takes its final name. The command, the
//! window and the catalog's record of what was ingested come next.

pub mod copy;
pub mod held;
pub mod naming;
pub mod retime;
pub mod roots;

pub use copy::{Copied, IngestError, Written, copy_verified, write_parts};
pub use held::HeldFolder;
pub use naming::{Fields, Pattern, PatternError};
pub use roots::{Anchor, RootLock, RootsError};
