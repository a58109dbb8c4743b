//! # Sweeps: latency against node count, reduction bandwidth against vector size
//!
//! `netcoll fabric sweep` runs fabric files (each a series, e.g. one topology) at several node
//! counts: for each count `n` the file's `fabric.hosts` is set to `n` and every group takes all
//! nodes. A count the topology cannot hold is skipped (and listed). The points go to a CSV
//! file and an SVG plot of the median latency (ns) of a barrier (or of a reduction's
//! operation) against the node count. With more than one algorithm ([`How::algos`]: the
//! switches, the NICs, host software, see [`crate::offload`]) each file is a series per
//! algorithm, named `file (algo)`: the switch-versus-NIC-versus-host comparison on one
//! fabric.
//!
//! With `--bytes`, it runs files with reduction groups at several vector sizes instead
//! ([`run_sizes`]): every reduction group's `words` is set to the size (its `window` cut to the
//! chunks there are), and the first reduction group's operations are measured. A point gives
//! the median operation time `T(S)` and two fractions of the link rate `B` (the bandwidth of
//! the first member's link, bytes a cycle):
//!
//! - **end to end**: `S / (T(S) · B)`, which includes the time the first chunk takes to go up
//!   the tree and come back;
//! - **streaming**: `(S − C) / ((T(S) − T(C)) · B)`, the rate at which the bytes beyond the
//!   first chunk go through, with `C` one chunk (`chunk` words, run as a point of its own). A
//!   packet of `chunk` words carries `8 · chunk` bytes of data in `8 + 8 · chunk` on the link,
//!   so the streaming fraction is at most `chunk / (chunk + 1)` (0.992 for 128 words).

use crate::collective::Kind;
use crate::spec::{FabricFile, Members};
use crate::{Algo, Fabric, FabricError, OffloadOptions, RunOptions};
use netcoll_models::config::Config;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Point {
    pub series: String,
    pub hosts: usize,
    pub barriers: u64,
    pub median: u64,
    pub p99: u64,
    pub max: u64,
    pub median_ns: f64,
    pub safe: bool,
}

/// How a node-count sweep runs.
#[derive(Clone, Debug)]
pub struct How {
    /// Who runs the collectives: a series per file and algorithm (named after the file alone
    /// when there is one algorithm).
    pub algos: Vec<Algo>,
    pub seed: u64,
    /// OS noise of the NICs' and hosts' runs ([`OffloadOptions`]).
    pub noise_prob: f64,
    pub noise_cycles: u64,
}

/// Runs every series at every node count; returns the points and the skipped runs.
pub fn run(
    series: &[(String, FabricFile)],
    hosts: &[usize],
    config: &Config,
    how: &How,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<Point>, Vec<String>), FabricError> {
    let mut points = vec![];
    let mut skipped = vec![];
    for (name, file) in series {
        for &n in hosts {
            let mut f = file.clone();
            f.fabric.hosts = Some(n);
            for g in &mut f.groups {
                g.members = Members::Text("all".to_string());
            }
            let fabric = match Fabric::new(f, *config) {
                Ok(fabric) => fabric,
                Err(e @ FabricError::Invalid { .. })
                    if e.to_string().starts_with("fabric.hosts") =>
                {
                    skipped.push(format!("{name} with {n} nodes: {e}"));
                    continue;
                }
                Err(e) => return Err(e),
            };
            for &algo in &how.algos {
                let series = if how.algos.len() == 1 {
                    name.clone()
                } else {
                    format!("{name} ({})", algo.name())
                };
                progress(&format!("{series}: {n} nodes"));
                let r = fabric.run_offloaded(
                    algo,
                    &OffloadOptions {
                        seed: how.seed,
                        noise_prob: how.noise_prob,
                        noise_cycles: how.noise_cycles,
                        ..Default::default()
                    },
                    &mut |_, _| {},
                )?;
                let s = &r.summary;
                points.push(Point {
                    series,
                    hosts: n,
                    barriers: s.barriers,
                    median: s.latency_median,
                    p99: s.latency_p99,
                    max: s.latency_max,
                    median_ns: s.latency_median as f64 * s.clock_ns,
                    safe: s.safe,
                });
            }
        }
    }
    Ok((points, skipped))
}

/// A CSV field: quoted (with its quotes doubled) when it holds a comma, a quote or a line end.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The points as CSV, one header line.
pub fn csv(points: &[Point]) -> String {
    let mut s =
        String::from("series,hosts,barriers,median_cycles,p99_cycles,max_cycles,median_ns,safe\n");
    for p in points {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:.1},{}",
            field(&p.series),
            p.hosts,
            p.barriers,
            p.median,
            p.p99,
            p.max,
            p.median_ns,
            p.safe
        );
    }
    s
}

/// An SVG plot of median latency (ns) against node count, one line per series.
pub fn svg(points: &[Point], path: &Path) -> Result<(), String> {
    let named: Vec<(&str, f64, f64)> = points
        .iter()
        .map(|p| (p.series.as_str(), p.hosts as f64, p.median_ns))
        .collect();
    plot_lines(
        "latency vs node count",
        ("nodes", "median latency of a barrier or operation (ns)"),
        &lines_by_name(&named),
        path,
    )
}

/// Points `(name, x, y)` as one line per name, the names in the order they first appear
/// (points of several series may alternate).
pub fn lines_by_name(points: &[(&str, f64, f64)]) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = vec![];
    for &(name, x, y) in points {
        match lines.iter_mut().find(|(n, _)| n == name) {
            Some((_, pts)) => pts.push((x, y)),
            None => lines.push((name.to_string(), vec![(x, y)])),
        }
    }
    lines
}

/// An SVG plot of named lines of points `(x, y)`, both axes from 0, with a legend.
pub fn plot_lines(
    caption: &str,
    (x_desc, y_desc): (&str, &str),
    lines: &[(String, Vec<(f64, f64)>)],
    path: &Path,
) -> Result<(), String> {
    let all = lines.iter().flat_map(|(_, pts)| pts);
    let xmax = all.clone().map(|p| p.0).fold(1.0, f64::max);
    let ymax = all.map(|p| p.1).fold(1.0, f64::max);
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..xmax * 1.05, 0.0..ymax * 1.15)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (name, pts)) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    // Upper left: the lines rise with the node count, so that corner is the emptiest.
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// One run of a size sweep (see the module docs).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SizePoint {
    pub series: String,
    /// Bytes per member.
    pub bytes: u64,
    pub operations: u64,
    /// Median time of an operation, cycles (last entry to last release).
    pub median: u64,
    /// Link rate, bytes a cycle.
    pub link_bytes_per_cycle: u64,
    pub end_to_end: f64,
    /// `None` for the one-chunk reference point.
    pub streaming: Option<f64>,
    pub safe: bool,
}

/// Runs every series at every vector size in `bytes` (and at one chunk, the reference of the
/// streaming fraction); returns the points and the sizes skipped (not a whole number of
/// words, or below one chunk).
pub fn run_sizes(
    series: &[(String, FabricFile)],
    bytes: &[u64],
    config: &Config,
    seed: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<SizePoint>, Vec<String>), FabricError> {
    let mut points = vec![];
    let mut skipped = vec![];
    for (name, file) in series {
        let base = Fabric::new(file.clone(), *config)?;
        let Some((gi, r)) = base.reduction(0) else {
            return Err(FabricError::Invalid {
                key: "--bytes".to_string(),
                value: name.clone(),
                why:
                    "the file has no reduction group (collective = allreduce, reduce or broadcast)"
                        .to_string(),
            });
        };
        let first = base.members(gi)[0];
        let link_bw = base.topo.links[base.topo.node_link[first]].bandwidth;
        let chunk_bytes = 8 * r.chunk;
        let mut sizes = vec![chunk_bytes];
        for &b in bytes {
            if b % 8 != 0 || b < chunk_bytes {
                skipped.push(format!(
                    "{name} at {b} bytes: must be a whole number of 8-byte words, at least one chunk ({chunk_bytes} bytes)"
                ));
            } else if b != chunk_bytes {
                sizes.push(b);
            }
        }
        let mut reference: Option<u64> = None;
        for b in sizes {
            let mut f = file.clone();
            let words = b / 8;
            for (i, g) in f.groups.iter_mut().enumerate() {
                if let Kind::Reduce(gr) = base.kind(i) {
                    g.words = Some(words);
                    g.window = Some(gr.window.min(words.div_ceil(gr.chunk)));
                }
            }
            progress(&format!("{name}: {b} bytes"));
            let r = Fabric::new(f, *config)?.run(
                &RunOptions {
                    seed,
                    ..Default::default()
                },
                &mut |_, _| {},
            )?;
            let mut t: Vec<u64> = r
                .records
                .iter()
                .filter(|x| x.group == base.group_name(gi))
                .map(|x| x.latency)
                .collect();
            t.sort_unstable();
            let median = t.get(t.len().saturating_sub(1) / 2).copied().unwrap_or(0);
            let rate = |bytes: u64, cycles: u64| {
                if cycles == 0 {
                    0.0
                } else {
                    bytes as f64 / (cycles as f64 * link_bw as f64)
                }
            };
            let streaming = match reference {
                None => {
                    reference = Some(median);
                    None
                }
                Some(tc) => Some(rate(b - chunk_bytes, median.saturating_sub(tc))),
            };
            points.push(SizePoint {
                series: name.clone(),
                bytes: b,
                operations: t.len() as u64,
                median,
                link_bytes_per_cycle: link_bw,
                end_to_end: rate(b, median),
                streaming,
                safe: r.summary.safe,
            });
        }
    }
    Ok((points, skipped))
}

/// A size sweep's points as CSV, one header line.
pub fn csv_sizes(points: &[SizePoint]) -> String {
    let mut s = String::from(
        "series,bytes,operations,median_cycles,link_bytes_per_cycle,end_to_end,streaming,safe\n",
    );
    for p in points {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{:.4},{},{}",
            field(&p.series),
            p.bytes,
            p.operations,
            p.median,
            p.link_bytes_per_cycle,
            p.end_to_end,
            p.streaming.map_or(String::new(), |x| format!("{x:.4}")),
            p.safe
        );
    }
    s
}

/// An SVG plot of both fractions of the link rate against the vector size (log scale), one
/// pair of lines per series, with the 0.99 mark.
pub fn svg_sizes(points: &[SizePoint], path: &Path) -> Result<(), String> {
    let xmin = points.iter().map(|p| p.bytes).min().unwrap_or(1).max(1) as f64;
    let xmax = points.iter().map(|p| p.bytes).max().unwrap_or(2) as f64;
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption("reduction bandwidth vs vector size", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((xmin * 0.8..xmax * 1.25).log_scale(), 0.0..1.05)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("bytes per member")
        .y_desc("fraction of link rate")
        .x_label_formatter(&|x| {
            let b = *x;
            if b >= 1048576.0 {
                format!("{:.0} MiB", b / 1048576.0)
            } else if b >= 1024.0 {
                format!("{:.0} KiB", b / 1024.0)
            } else {
                format!("{b:.0} B")
            }
        })
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(LineSeries::new(
            vec![(xmin * 0.8, 0.99), (xmax * 1.25, 0.99)],
            BLACK.mix(0.4).stroke_width(1),
        ))
        .map_err(|e| e.to_string())?
        .label("0.99")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.4)));
    // Each series once, in the order it first appears (the points of several algorithms
    // alternate).
    let mut names: Vec<&str> = vec![];
    for p in points {
        if !names.contains(&p.series.as_str()) {
            names.push(&p.series);
        }
    }
    for (i, name) in names.iter().enumerate() {
        for (j, streaming) in [false, true].into_iter().enumerate() {
            let color = Palette99::pick(2 * i + j).to_rgba();
            let pts: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| p.series == *name)
                .filter_map(|p| {
                    let y = if streaming {
                        p.streaming?
                    } else {
                        p.end_to_end
                    };
                    Some((p.bytes as f64, y))
                })
                .collect();
            let what = if streaming { "streaming" } else { "end to end" };
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(format!("{name}: {what}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
            chart
                .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))
                .map_err(|e| e.to_string())?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}
