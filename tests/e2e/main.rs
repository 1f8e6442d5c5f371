//! DarkRoom's end-to-end suites, as modules of one test binary: each links the whole tree
//! (tract, wgpu, egui), so one binary links it once instead of nine times (CI budget). The
//! suites drive the real binary (`CARGO_BIN_EXE_darkroom`), or the window in this process; the
//! one runtime a process may install is ONNX Runtime 1.31.1 here (`support::ort_lib`), which
//! every in-process suite asks for.

#[path = "../../library/tests/support/exiv2.rs"]
mod exiv2;
#[path = "../../models/tests/support/http.rs"]
mod http;
mod snapshots;
mod support;

mod af_points;
mod decisions;
mod export_cli;
mod faces_cli;
mod gui;
mod gui_af;
mod gui_culling;
mod gui_ingest;
mod gui_pace;
mod gui_switch;
mod gui_zoom;
mod hostile_files;
mod index_cli;
mod index_passes;
mod ingest_cli;
mod model_release;
mod models_cli;
mod runtime_probe;
mod scenes_cli;
mod session_tuning;
mod subject_cli;
mod window;
mod working_decode;

// The simulated GPU rung exists only with the `fake-gpu` feature (scripts/test enables it).
#[cfg(feature = "fake-gpu")]
mod backend_ladder;
#[cfg(feature = "fake-gpu")]
mod backend_pin;
