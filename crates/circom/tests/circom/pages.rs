//! A mapped key's point sections are not kept resident: after the load's
//! check and after each query's MSM the prover drops their pages
//! (`ReleaseQuery`), so a proof's peak memory holds the section it reads,
//! not the whole file. Measured where the kernel counts it: the mapping's
//! `Rss` in /proc/self/smaps (Linux only), with the pages the kernel maps
//! around each read fault allowed for.

use crate::support::{read, sections};
use zkaccel_circom::*;
use zkaccel_groth16::{Backend, KeyQuery, ReleaseQuery};

/// The resident bytes of this process's mappings of `path`.
fn mapped_rss(path: &std::path::Path) -> usize {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let name = path.to_str().unwrap();
    let mut rss_kib = 0;
    let mut inside = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            // A mapping's header line: address range, perms, offset, dev, inode, path.
            inside = line.ends_with(name);
        } else if inside && first == "Rss:" {
            rss_kib += line
                .split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<usize>()
                .unwrap();
        }
    }
    rss_kib * 1024
}

/// The bytes a read fault may map beside the faulting page: the kernel's
/// fault-around window (`fault_around_bytes`, 64 KiB unless changed in
/// debugfs), aligned in the process's address space. It maps only the
/// file's pages already cached, which a just-written file's all are.
fn fault_around() -> usize {
    std::fs::read_to_string("/sys/kernel/debug/fault_around_bytes")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(64 << 10)
        .max(4096)
}

/// The bytes of `ranges` (offsets in a mapping at address `base`) in the
/// aligned `window`s that lie wholly inside one range: pages that a fault
/// outside the range (the header, the coefficients, the next section's
/// MSM) cannot map back by faulting around.
fn interior(base: usize, ranges: &[std::ops::Range<usize>], window: usize) -> usize {
    ranges
        .iter()
        .map(|r| interior_of(base, r, window).len())
        .sum()
}

/// The offsets of the aligned `window`s wholly inside `range` (offsets in
/// a mapping at address `base`); empty where there are none.
fn interior_of(
    base: usize,
    range: &std::ops::Range<usize>,
    window: usize,
) -> std::ops::Range<usize> {
    let first = (base + range.start).next_multiple_of(window);
    let end = ((base + range.end) / window * window).max(first);
    first - base..end - base
}

/// The pages of `bytes` that this process has mapped, as offsets into
/// `bytes`, read from /proc/self/pagemap (bit 63 of each page's entry:
/// present); `None` where that file cannot be read. For the failure
/// messages: which pages a bound was broken by.
fn present_pages(bytes: &[u8]) -> Option<Vec<usize>> {
    use std::io::{Read, Seek, SeekFrom};
    const PAGE: usize = 4096;
    let base = bytes.as_ptr() as usize / PAGE * PAGE;
    let end = (bytes.as_ptr() as usize + bytes.len()).next_multiple_of(PAGE);
    let mut file = std::fs::File::open("/proc/self/pagemap").ok()?;
    file.seek(SeekFrom::Start((base / PAGE * 8) as u64)).ok()?;
    let mut entries = vec![0u8; (end - base) / PAGE * 8];
    file.read_exact(&mut entries).ok()?;
    let start = bytes.as_ptr() as usize;
    Some(
        entries
            .chunks_exact(8)
            .enumerate()
            .filter(|(_, e)| u64::from_le_bytes((*e).try_into().unwrap()) >> 63 == 1)
            .map(|(i, _)| (base + i * PAGE).saturating_sub(start))
            .collect(),
    )
}

/// The offsets of `bytes`' mapped pages that lie in the aligned `window`s
/// wholly inside one of `ranges` (those [`interior`] counts as released),
/// for a failure message.
fn resident_interior(bytes: &[u8], ranges: &[std::ops::Range<usize>], window: usize) -> String {
    let base = bytes.as_ptr() as usize;
    let Some(pages) = present_pages(bytes) else {
        return "(no /proc/self/pagemap)".into();
    };
    let inside: Vec<String> = pages
        .into_iter()
        .filter(|&off| {
            ranges
                .iter()
                .any(|r| interior_of(base, r, window).contains(&off))
        })
        .map(|off| off.to_string())
        .collect();
    format!(
        "pages mapped inside the released windows at offsets [{}] (map at {base:#x}, sections {ranges:?})",
        inside.join(", ")
    )
}

/// The bytes mapped inside the released windows (see [`interior`]) that
/// continue, page after page, a mapped run from an edge of one, at most a
/// quarter of `window` (4 pages of a 64 KiB one) an edge: pages that a
/// fault just outside may have mapped with its own. Where the page cache
/// holds large folios (ext4 on recent kernels), faulting around one window
/// can map the rest of a folio that reaches past it: once, in a CI run at
/// the test profile's opt-level 1, one page over the windows' bound. A
/// section left mapped still breaks the bound: its pages beyond 4 from
/// either edge count. 0 where /proc/self/pagemap cannot be read (the bound
/// is then the windows' own).
fn edge_runs(bytes: &[u8], ranges: &[std::ops::Range<usize>], window: usize) -> usize {
    const PAGE: usize = 4096;
    let Some(pages) = present_pages(bytes) else {
        return 0;
    };
    let present: std::collections::BTreeSet<usize> = pages.into_iter().collect();
    let base = bytes.as_ptr() as usize;
    let mut total = 0;
    for r in ranges {
        let inside = interior_of(base, r, window);
        if inside.is_empty() {
            continue;
        }
        let run = |mut off: usize, step: isize| {
            let mut n = 0;
            while n < window / 4 && inside.contains(&off) && present.contains(&off) {
                n += PAGE;
                off = off.wrapping_add_signed(step);
            }
            n
        };
        let up = run(inside.start, PAGE as isize);
        let down = if up >= inside.len() {
            0
        } else {
            run(inside.end - PAGE, -(PAGE as isize))
        };
        total += up + down;
    }
    total
}

/// Reads every byte of `bytes` (so that its pages are mapped).
fn touch(bytes: &[u8]) -> u64 {
    bytes.iter().step_by(512).map(|&b| u64::from(b)).sum()
}

#[test]
fn point_sections_are_released_after_load_and_after_each_msm() {
    if !std::path::Path::new("/proc/self/smaps").exists() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIP point_sections_are_released: no /proc/self/smaps (not Linux)"
        );
        return;
    }
    type E = ark_bn254::Bn254;
    // The largest fixture: its point sections span whole fault-around
    // windows, so that keeping them would break the bound below.
    let name = "merkle";
    let zkey = read(name, "circuit.zkey");
    let path = std::env::temp_dir().join(format!("zkaccel-pages-{}.zkey", std::process::id()));
    std::fs::write(&path, &zkey).unwrap();
    let map = ZkeyMap::new(&std::fs::File::open(&path).unwrap()).unwrap();
    let prover = CircomProver::<E>::from_zkey_map(&map, Backend::Cpu, ZkeyOptions::default());
    let prover = prover.unwrap();
    let h = &prover.zkey().header;
    // The five point sections (A, B1, B2, C, H): all their pages may stay
    // out of memory but those a fault beside them maps again (the kernel
    // faults around: the header and the coefficients are read in place by
    // the witness map, each query's MSM reads its own section). The rest of
    // the file may stay.
    let points: Vec<_> = sections(&zkey)
        .into_iter()
        .filter(|(id, _)| (5..=9).contains(id))
        .map(|(_, body)| body)
        .collect();
    assert_eq!(points.len(), 5, "the point sections");
    let g1 = 64;
    let point_bytes =
        g1 * (2 * h.n_vars + (h.n_vars - h.n_public - 1) + h.domain_size) + 2 * g1 * h.n_vars;
    let total: usize = points.iter().map(|r| r.len()).sum();
    assert_eq!(total, point_bytes, "the header's sizes");
    let window = fault_around();
    let released = interior(map.bytes().as_ptr() as usize, &points, window);
    assert!(
        released > zkey.len() / 2,
        "{released} of {} bytes",
        zkey.len()
    );
    let bound = zkey.len().next_multiple_of(4096) - released;
    let after_load = mapped_rss(&path);
    let slack = edge_runs(map.bytes(), &points, window);
    assert!(
        after_load <= bound + slack,
        "after the load: {after_load} resident, bound {bound} + {slack}; {}",
        resident_interior(map.bytes(), &points, window)
    );

    let witness = read_wtns::<ark_bn254::Fr>(&read(name, "witness.wtns")).unwrap();
    let owned = CircomProver::<E>::from_zkey_bytes(&zkey, Backend::Cpu, ZkeyOptions::default());
    let owned = owned.unwrap();
    let (r, s) = (ark_bn254::Fr::from(7u64), ark_bn254::Fr::from(11u64));
    for round in 0..2 {
        // The pages read back after each release give the same proof as
        // the decoded key's.
        let proof = prover.prove_with(&witness, r, s).unwrap();
        let expected = owned.prove_with(&witness, r, s).unwrap();
        assert_eq!(proof.proof, expected.proof, "round {round}");
        let after_proof = mapped_rss(&path);
        let slack = edge_runs(map.bytes(), &points, window);
        assert!(
            after_proof <= bound + slack,
            "after proof {round}: {after_proof} resident, bound {bound} + {slack}; {}",
            resident_interior(map.bytes(), &points, window)
        );
    }

    // The measurement sees mapped pages: every byte read, the whole file is
    // resident; one query released, its section's pages go again.
    assert!(touch(map.bytes()) > 0);
    let touched = mapped_rss(&path);
    assert!(
        touched >= zkey.len() / 4096 * 4096,
        "{touched} of {} resident",
        zkey.len()
    );
    prover.zkey().release(KeyQuery::H);
    let h_bytes = g1 * h.domain_size;
    let after_h = mapped_rss(&path);
    assert!(
        after_h + h_bytes - 2 * 4096 <= touched,
        "H's {h_bytes} bytes released: {touched} -> {after_h}"
    );
    drop(map);
    std::fs::remove_file(&path).unwrap();
}
