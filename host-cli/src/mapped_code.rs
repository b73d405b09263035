//! The component's native code, used where it already lies: in agon's own file.
//!
//! `Component::deserialize` copies the 1.8 MB compiled artifact into fresh
//! memory before making it executable, and that copy, with the page faults of
//! its source and its destination, was the largest single cost of a launch.
//! On Linux the artifact is instead mapped afresh from the executable file
//! (`/proc/self/exe`, at the artifact's offset), privately and read-only: only
//! the pages a run touches are read, straight from the page cache, and nothing
//! is copied. wasmtime makes the code executable through the mapping's
//! [`CustomCodeMemory`](wasmtime::CustomCodeMemory), so the mapping lives
//! exactly as long as the engine and the code that use it.
//!
//! Anything unexpected (another OS, a file that does not hold the bytes where
//! the process's own memory map says) gives an error, and the caller copies.

use anyhow::Result;
use wasmtime::component::Component;
use wasmtime::{Config, Engine};

/// Bytes that start on a page boundary, so that their offset in the
/// executable's file is a page multiple too (a loaded segment's file offset and
/// address agree modulo its alignment), which is what `mmap` needs.
#[repr(C, align(4096))]
pub struct PageAligned<T: ?Sized>(pub T);

/// An engine configured by `config`, and the component compiled into `code`,
/// used where `code` lies in this executable's file.
#[cfg(target_os = "linux")]
pub fn load(mut config: Config, code: &'static PageAligned<[u8]>) -> Result<(Engine, Component)> {
    let mapping = std::sync::Arc::new(Mapping::of_own_file(code)?);
    config.with_custom_code_memory(Some(mapping.clone()));
    let engine = Engine::new(&config)?;
    // SAFETY: the bytes are what build.rs compiled with this very wasmtime, and
    // wasmtime checks them as `Component::deserialize` does. The mapping lives
    // as long as the component (the engine's configuration holds it), and it
    // maps agon's own running executable, which stays as unchanged as agon's
    // own code.
    let component = unsafe { Component::deserialize_raw(&engine, mapping.memory()) }?;
    Ok((engine, component))
}

/// Mapping the executable's own file is done on Linux only.
#[cfg(not(target_os = "linux"))]
pub fn load(_config: Config, _code: &'static PageAligned<[u8]>) -> Result<(Engine, Component)> {
    anyhow::bail!("the code is used in place on Linux only")
}

/// A private, read-only mapping of a part of this executable's file.
#[cfg(target_os = "linux")]
struct Mapping {
    base: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is never written through `base`; wasmtime only reads it
// and, through the trait below, changes its protection.
#[cfg(target_os = "linux")]
unsafe impl Send for Mapping {}
// SAFETY: as above.
#[cfg(target_os = "linux")]
unsafe impl Sync for Mapping {}

#[cfg(target_os = "linux")]
impl Mapping {
    /// `bytes`, a static of this executable, mapped again from its file.
    fn of_own_file(bytes: &'static PageAligned<[u8]>) -> Result<Mapping> {
        use anyhow::{Context, bail, ensure};
        use rustix::mm::{MapFlags, ProtFlags, mmap};
        use std::os::unix::fs::MetadataExt;

        let bytes = &bytes.0;
        ensure!(!bytes.is_empty(), "nothing to map");
        let address = bytes.as_ptr() as usize;
        let exe = std::fs::File::open("/proc/self/exe").context("opening /proc/self/exe")?;
        let inode = exe.metadata().context("reading /proc/self/exe")?.ino();
        let maps = std::fs::read_to_string("/proc/self/maps").context("reading /proc/self/maps")?;
        let Some(offset) = maps.lines().find_map(|line| file_offset(line, address, inode)) else {
            bail!("the process's memory map does not place the code in its executable file");
        };
        let page = rustix::param::page_size();
        ensure!(offset % page as u64 == 0, "the code is not page aligned in the executable file");
        // SAFETY: a fresh private mapping of a file opened read-only; it
        // aliases no Rust object.
        let base = unsafe {
            mmap(std::ptr::null_mut(), bytes.len(), ProtFlags::READ, MapFlags::PRIVATE, &exe, offset)
                .context("mapping the executable file")?
        };
        let base = std::ptr::NonNull::new(base.cast()).context("mmap gave a null address")?;
        let mapping = Mapping { base, len: bytes.len() };
        // The map line was matched by inode; the bytes at both ends confirm the offset.
        // SAFETY: the mapping is `len` readable bytes, live until `mapping` drops.
        let mapped = unsafe { std::slice::from_raw_parts(mapping.base.as_ptr(), mapping.len) };
        let edge = page.min(bytes.len());
        ensure!(
            mapped[..edge] == bytes[..edge] && mapped[bytes.len() - edge..] == bytes[bytes.len() - edge..],
            "the executable file does not hold the code at the mapped offset"
        );
        Ok(mapping)
    }

    /// The memory to hand to `Component::deserialize_raw`.
    fn memory(&self) -> std::ptr::NonNull<[u8]> {
        std::ptr::NonNull::slice_from_raw_parts(self.base, self.len)
    }
}

/// The offset in the file of `address`, if this `/proc/self/maps` line maps it
/// from the file with `inode`: `start-end perms offset dev inode path`.
#[cfg(target_os = "linux")]
fn file_offset(line: &str, address: usize, inode: u64) -> Option<u64> {
    let mut fields = line.split_ascii_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
    let offset = u64::from_str_radix(fields.nth(1)?, 16).ok()?;
    let line_inode: u64 = fields.nth(1)?.parse().ok()?;
    (start <= address && address < end && line_inode == inode).then(|| offset + (address - start) as u64)
}

#[cfg(target_os = "linux")]
impl wasmtime::CustomCodeMemory for Mapping {
    fn required_alignment(&self) -> usize {
        rustix::param::page_size()
    }

    fn publish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        use rustix::mm::{MprotectFlags, mprotect};
        // SAFETY: wasmtime passes a page-aligned range of this mapping's code,
        // which nothing writes.
        unsafe { mprotect(ptr as *mut _, len, MprotectFlags::READ | MprotectFlags::EXEC) }?;
        Ok(())
    }

    fn unpublish_executable(&self, ptr: *const u8, len: usize) -> wasmtime::Result<()> {
        use rustix::mm::{MprotectFlags, mprotect};
        // SAFETY: as above; wasmtime guarantees no code runs from the range.
        unsafe { mprotect(ptr as *mut _, len, MprotectFlags::READ | MprotectFlags::WRITE) }?;
        Ok(())
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `of_own_file` with this length, and the
        // last user (the engine's configuration, or a component's code) is gone.
        let _ = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_maps_line_gives_the_offset_of_an_address_in_its_file() {
        let line = "55d0c0a00000-55d0c0c00000 r--p 00200000 fd:01 1234   /usr/bin/agon";
        assert_eq!(file_offset(line, 0x55d0c0a01000, 1234), Some(0x201000));
        assert_eq!(file_offset(line, 0x55d0c0a01000, 99), None, "another file");
        assert_eq!(file_offset(line, 0x55d0c0c00000, 1234), None, "past the end");
        assert_eq!(file_offset("7ffd1000-7ffd2000 rw-p 00000000 00:00 0   [stack]", 0x7ffd1800, 1234), None);
    }

    static SAMPLE: &PageAligned<[u8]> = &PageAligned(*b"bytes this test binary carries, mapped back from its own file");

    #[test]
    fn a_static_maps_back_from_the_executable_with_the_same_bytes() {
        let mapping = Mapping::of_own_file(SAMPLE).expect("maps");
        // SAFETY: the mapping is live and `len` bytes long.
        let mapped = unsafe { mapping.memory().as_ref() };
        assert_eq!(mapped, &SAMPLE.0);
        assert_ne!(mapped.as_ptr(), SAMPLE.0.as_ptr(), "a new mapping, not the static itself");
    }
}
