//! Where DarkRoom keeps things on disk (XDG on Linux, AppData on Windows).

use std::path::PathBuf;

/// The app's data dir: `DARKROOM_DATA_DIR`, else the platform's (`~/.local/share/darkroom`).
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("DARKROOM_DATA_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("org", "DarkRoom", "darkroom")
        .map(|d| d.data_dir().to_path_buf())
}

/// The shared models dir: `DARKROOM_MODELS`, else `<data dir>/models`.
pub fn models_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("DARKROOM_MODELS").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    data_dir().map(|d| d.join("models"))
}

/// The inference dir, beside the models dir: the probe cache, the backend setting and the
/// compiled engines. `DARKROOM_INFERENCE_DIR`, else `<data dir>/inference`.
pub fn inference_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("DARKROOM_INFERENCE_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    data_dir().map(|d| d.join("inference"))
}

/// The cache dir (thumbnails): `DARKROOM_CACHE_DIR`, else the platform's (`~/.cache/darkroom`).
/// Everything in it can be deleted.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("DARKROOM_CACHE_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("org", "DarkRoom", "darkroom")
        .map(|d| d.cache_dir().to_path_buf())
}

/// Where a package installs the models any package may ship, read only: beside the executable
/// (`models/`, the Windows installer's layout) and `../share/darkroom/models` from it (Arch's
/// `/usr/bin` → `/usr/share`, Flatpak's `/app/bin` → `/app/share`). Files there are used only
/// for cards that pin their bytes, and are hash-checked like any other.
pub fn bundled_models_dirs() -> Vec<PathBuf> {
    let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(PathBuf::from))
    else {
        return Vec::new();
    };
    vec![
        exe_dir.join("models"),
        exe_dir.join("../share/darkroom/models"),
    ]
}

/// The data and cache dirs, made if missing and private to this user (0700 on Unix: the
/// catalog holds people's names and faces, the cache their thumbnails). A platform dir an
/// older DarkRoom made readable by others is tightened; one named by an environment variable
/// is the user's choice and only made if missing. What could not be done, in words.
pub fn make_private() -> Vec<String> {
    let platform = directories::ProjectDirs::from("org", "DarkRoom", "darkroom");
    let dirs = [
        (
            data_dir(),
            platform.as_ref().map(|d| d.data_dir().to_path_buf()),
        ),
        (
            cache_dir(),
            platform.as_ref().map(|d| d.cache_dir().to_path_buf()),
        ),
    ];
    let mut problems = Vec::new();
    for (dir, default) in dirs {
        let Some(dir) = dir else { continue };
        let made = darkroom_library::durable::create_private_dir_all(&dir).and_then(|()| {
            if Some(&dir) == default.as_ref() {
                darkroom_library::durable::make_private(&dir)
            } else {
                Ok(())
            }
        });
        if let Err(e) = made {
            problems.push(format!(
                "cannot make the folder private: {e}: {}",
                dir.display()
            ));
        }
    }
    problems
}
