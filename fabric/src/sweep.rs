//! # Sweeps: barrier latency against node count
//!
//! `netcoll fabric sweep` runs fabric files (each a series, e.g. one topology) at several node
//! counts: for each count `n` the file's `fabric.hosts` is set to `n` and every group takes all
//! nodes. A count the topology cannot hold is skipped (and listed). The points go to a CSV
//! file and an SVG plot of the median barrier latency (ns) against the node count.

use crate::spec::{FabricFile, Members};
use crate::{Fabric, FabricError, RunOptions};
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

/// Runs every series at every node count; returns the points and the skipped runs.
pub fn run(
    series: &[(String, FabricFile)],
    hosts: &[usize],
    config: &Config,
    seed: u64,
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
            progress(&format!("{name}: {n} nodes"));
            let r = fabric.run(
                &RunOptions {
                    seed,
                    ..Default::default()
                },
                &mut |_, _| {},
            )?;
            let s = &r.summary;
            points.push(Point {
                series: name.clone(),
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
    Ok((points, skipped))
}

/// The points as CSV, one header line.
pub fn csv(points: &[Point]) -> String {
    let mut s =
        String::from("series,hosts,barriers,median_cycles,p99_cycles,max_cycles,median_ns,safe\n");
    for p in points {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:.1},{}",
            p.series, p.hosts, p.barriers, p.median, p.p99, p.max, p.median_ns, p.safe
        );
    }
    s
}

/// An SVG plot of median latency (ns) against node count, one line per series.
pub fn svg(points: &[Point], path: &Path) -> Result<(), String> {
    let xmax = points.iter().map(|p| p.hosts).max().unwrap_or(1) as f64;
    let ymax = points.iter().map(|p| p.median_ns).fold(1.0, f64::max);
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption("barrier latency vs node count", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..xmax * 1.05, 0.0..ymax * 1.15)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("nodes")
        .y_desc("median barrier latency (ns)")
        .draw()
        .map_err(|e| e.to_string())?;
    let mut names: Vec<&str> = points.iter().map(|p| p.series.as_str()).collect();
    names.dedup();
    for (i, name) in names.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.series == *name)
            .map(|p| (p.hosts as f64, p.median_ns))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(name.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart
            .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))
            .map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}
