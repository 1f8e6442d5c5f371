//! The CUDA driver (dlopened, never linked), asked for device 0.

use std::ffi::{CStr, c_char};

/// The CUDA driver library names, by platform.
const DRIVER_NAMES: &[&str] = if cfg!(windows) {
    &["nvcuda.dll"]
} else {
    &["libcuda.so.1", "libcuda.so"]
};

/// Device 0 as the driver reports it.
pub struct Device {
    pub name: String,
    pub compute_major: i32,
    pub compute_minor: i32,
    /// `cuDriverGetVersion`: 12040 for CUDA 12.4.
    pub driver_api_version: i32,
}

/// `Ok(None)` when there is no driver or no device, which is the common case. Runs vendor
/// code that can hang or crash on a wedged driver: call it only in a worker process.
pub fn device0() -> Result<Option<Device>, String> {
    let Some(lib) = super::open_first(DRIVER_NAMES) else {
        return Ok(None);
    };
    type Init = unsafe extern "system" fn(u32) -> i32;
    type GetInt = unsafe extern "system" fn(*mut i32) -> i32;
    type DeviceGet = unsafe extern "system" fn(*mut i32, i32) -> i32;
    type DeviceName = unsafe extern "system" fn(*mut c_char, i32, i32) -> i32;
    type DeviceAttr = unsafe extern "system" fn(*mut i32, i32, i32) -> i32;
    const CC_MAJOR: i32 = 75;
    const CC_MINOR: i32 = 76;
    // SAFETY: the CUDA driver API's documented signatures (cuda.h), each pointer used while
    // `lib` is loaded; every out-pointer is a valid local, and the name buffer's length is
    // passed with it (the driver NUL-terminates within it).
    unsafe {
        let init: Init = symbol(&lib, "cuInit")?;
        let version: GetInt = symbol(&lib, "cuDriverGetVersion")?;
        let count: GetInt = symbol(&lib, "cuDeviceGetCount")?;
        let device_get: DeviceGet = symbol(&lib, "cuDeviceGet")?;
        let device_name: DeviceName = symbol(&lib, "cuDeviceGetName")?;
        let attr: DeviceAttr = symbol(&lib, "cuDeviceGetAttribute")?;
        let rc = init(0);
        if rc != 0 {
            return Err(format!("cuInit failed with CUDA error {rc}"));
        }
        let mut n = 0;
        if count(&mut n) != 0 || n < 1 {
            return Ok(None);
        }
        let mut dev = 0;
        let rc = device_get(&mut dev, 0);
        if rc != 0 {
            return Err(format!("cuDeviceGet failed with CUDA error {rc}"));
        }
        let mut buf: [c_char; 256] = [0; 256];
        let name = if device_name(buf.as_mut_ptr(), buf.len() as i32, dev) == 0 {
            CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
        } else {
            "unknown NVIDIA GPU".to_owned()
        };
        let (mut compute_major, mut compute_minor) = (0, 0);
        attr(&mut compute_major, CC_MAJOR, dev);
        attr(&mut compute_minor, CC_MINOR, dev);
        let mut driver_api_version = 0;
        version(&mut driver_api_version);
        Ok(Some(Device {
            name,
            compute_major,
            compute_minor,
            driver_api_version,
        }))
    }
}

/// A function pointer from the CUDA driver.
///
/// # Safety
/// `T` must be the symbol's real signature, and the pointer must not outlive `lib`.
unsafe fn symbol<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, String> {
    // SAFETY: forwarded to the caller.
    unsafe { lib.get::<T>(name.as_bytes()) }
        .map(|s| *s)
        .map_err(|_| format!("the CUDA driver has no {name}"))
}
