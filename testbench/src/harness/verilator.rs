//! Co-simulation of an emitted Verilog module from Rust: the module is verilated, compiled into a
//! shared library together with a small generated C++ wrapper, and loaded with `libloading`.
//!
//! Builds are cached in `<repo>/target/verilator-cache/<hash>/` (override the cache root with the
//! environment variable `NETCOLL_VERILATOR_CACHE`). The Verilator runtime objects (`verilated.o`,
//! ...) are built once per Verilator version into `<cache>/runtime-<hash>/` and shared by all
//! models.

use std::collections::HashMap;
use std::ffi::{c_void, OsString};
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::tools::{find_tool, repo_root, run_exe, TempDir, ToolError};

/// One input or output port of the co-simulated module (excluding `clock`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PortDesc {
    /// Verilog name of the port (`[A-Za-z_][A-Za-z0-9_$]*`).
    pub name: String,
    /// Width in bits, `1..=64`.
    pub width: usize,
}

impl PortDesc {
    pub fn new(name: impl Into<String>, width: usize) -> Self {
        PortDesc {
            name: name.into(),
            width,
        }
    }
}

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type StepFn = unsafe extern "C" fn(*mut c_void, *const u64, *mut u64);
type OutputsFn = unsafe extern "C" fn(*mut c_void, *mut u64);
type CountsFn = unsafe extern "C" fn(*mut u32, *mut u32);

/// A verilated model loaded into this process. Dropping it frees the model (and unloads the
/// library once no other model uses it).
pub struct VerilatedModel {
    handle: *mut c_void,
    step_fn: StepFn,
    outputs_fn: OutputsFn,
    free_fn: FreeFn,
    n_in: usize,
    n_out: usize,
    build_dir: PathBuf,
    reused: bool,
    // Declared last so it is dropped after `Drop::drop` has freed the model.
    _lib: libloading::Library,
}

// SAFETY: the model is single-threaded (no `--threads`), owned exclusively by this value and only
// ever evaluated through `&mut self`; Verilator allows a model to be evaluated from any one thread
// at a time.
unsafe impl Send for VerilatedModel {}

/// Bumped whenever the build recipe below changes, so stale caches are not reused.
const RECIPE_VERSION: &str = "netcoll-verilator-recipe-2";
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
    "--noassert",
    "--no-timing",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
];
const OPT_FLAGS: &str = "-O2 -fPIC";
const MARKER: &str = "NETCOLL_BUILD_DONE";

fn is_identifier(s: &str, allow_dollar: bool) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || (allow_dollar && c == '$'))
}

/// The C++ member name Verilator uses for a Verilog identifier (`AstNode::encodeName`).
fn verilator_cpp_name(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if (i == 0 && c.is_ascii_alphabetic()) || (i > 0 && c.is_ascii_alphanumeric()) {
            out.push(c as char);
        } else if c == b'_' {
            if b.get(i + 1) == Some(&b'_') {
                out.push_str("___05F");
                i += 1;
            } else {
                out.push('_');
            }
        } else {
            let _ = write!(out, "__0{c:02x}");
        }
        i += 1;
    }
    out
}

fn cdata_type(width: usize) -> (&'static str, usize) {
    match width {
        1..=8 => ("CData", 1),
        9..=16 => ("SData", 2),
        17..=32 => ("IData", 4),
        _ => ("QData", 8),
    }
}

fn mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn validate(top: &str, inputs: &[PortDesc], outputs: &[PortDesc]) -> Result<(), ToolError> {
    if !is_identifier(top, false) {
        return Err(ToolError::Invalid(format!(
            "top module name `{top}` must match [A-Za-z_][A-Za-z0-9_]*"
        )));
    }
    let mut seen = std::collections::HashSet::new();
    seen.insert("clock".to_string());
    for p in inputs.iter().chain(outputs) {
        if !is_identifier(&p.name, true) {
            return Err(ToolError::Invalid(format!(
                "port name `{}` is not a plain Verilog identifier",
                p.name
            )));
        }
        if !(1..=64).contains(&p.width) {
            return Err(ToolError::Invalid(format!(
                "port `{}` has width {}; only 1..=64 bits are supported",
                p.name, p.width
            )));
        }
        if !seen.insert(p.name.clone()) {
            return Err(ToolError::Invalid(format!(
                "port `{}` listed twice (or is the implicit `clock`)",
                p.name
            )));
        }
    }
    Ok(())
}

/// Generates the `extern "C"` wrapper around `V<top>`.
fn wrapper_source(top: &str, inputs: &[PortDesc], outputs: &[PortDesc]) -> String {
    let cls = format!("V{top}");
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by netcoll-testbench (verilator.rs). Do not edit."
    );
    let _ = writeln!(s, "#include <cstdint>");
    let _ = writeln!(s, "#include <new>");
    let _ = writeln!(s, "#include <type_traits>");
    let _ = writeln!(s, "#include <utility>");
    let _ = writeln!(s, "#include \"verilated.h\"");
    let _ = writeln!(s, "#include \"{cls}.h\"\n");
    let _ = writeln!(
        s,
        "#define NC_PORT_SIZE(m) sizeof(std::remove_reference<decltype(std::declval<{cls}&>().m)>::type)"
    );
    for p in inputs.iter().chain(outputs) {
        let (ty, bytes) = cdata_type(p.width);
        let m = verilator_cpp_name(&p.name);
        let _ = writeln!(
            s,
            "static_assert(NC_PORT_SIZE({m}) == {bytes}, \"port {} ({} bits) should be a {ty}\");",
            p.name, p.width
        );
    }
    let _ = writeln!(
        s,
        r#"
namespace {{
struct NcModel {{
    VerilatedContext* ctx;
    {cls}* m;
}};
}}  // namespace

extern "C" {{
void nc_port_counts(uint32_t* n_in, uint32_t* n_out) {{
    *n_in = {ni};
    *n_out = {no};
}}

void* nc_new() {{
    NcModel* s = new (std::nothrow) NcModel{{nullptr, nullptr}};
    if (!s) return nullptr;
    try {{
        s->ctx = new VerilatedContext;
        s->m = new {cls}{{s->ctx, "TOP"}};
        {cls}* m = s->m;
        m->clock = 0;"#,
        ni = inputs.len(),
        no = outputs.len()
    );
    for p in inputs {
        let (ty, _) = cdata_type(p.width);
        let _ = writeln!(s, "        m->{} = ({ty})0;", verilator_cpp_name(&p.name));
    }
    let _ = writeln!(
        s,
        r#"        m->eval();
    }} catch (...) {{
        delete s->m;
        delete s->ctx;
        delete s;
        return nullptr;
    }}
    return s;
}}

void nc_free(void* p) {{
    NcModel* s = static_cast<NcModel*>(p);
    if (!s) return;
    try {{
        s->m->final();
    }} catch (...) {{
    }}
    delete s->m;
    delete s->ctx;
    delete s;
}}

void nc_step(void* p, const uint64_t* in, uint64_t* out) {{
    {cls}* m = static_cast<NcModel*>(p)->m;"#
    );
    for (i, p) in inputs.iter().enumerate() {
        let (ty, _) = cdata_type(p.width);
        let _ = writeln!(
            s,
            "    m->{} = ({ty})(in[{i}] & 0x{:x}ULL);",
            verilator_cpp_name(&p.name),
            mask(p.width)
        );
    }
    let _ = writeln!(s, "    m->clock = 0;\n    m->eval();");
    for (i, p) in outputs.iter().enumerate() {
        let _ = writeln!(
            s,
            "    out[{i}] = (uint64_t)m->{} & 0x{:x}ULL;",
            verilator_cpp_name(&p.name),
            mask(p.width)
        );
    }
    let _ = writeln!(s, "    m->clock = 1;\n    m->eval();\n}}\n");
    // The outputs as they are now (after the last edge), for blocks whose outputs depend on
    // state only.
    let _ = writeln!(
        s,
        "void nc_outputs(void* p, uint64_t* out) {{\n    {cls}* m = static_cast<NcModel*>(p)->m;"
    );
    for (i, p) in outputs.iter().enumerate() {
        let _ = writeln!(
            s,
            "    out[{i}] = (uint64_t)m->{} & 0x{:x}ULL;",
            verilator_cpp_name(&p.name),
            mask(p.width)
        );
    }
    let _ = writeln!(s, "}}\n}}  // extern \"C\"");
    s
}

/// Makefile wrapping Verilator's `V<top>.mk` with a runtime target and a shared-library target.
fn makefile(top: &str, lib: &str) -> String {
    format!(
        "include V{top}.mk\n\
         .PHONY: nc_runtime nc_lib\n\
         nc_runtime: $(VK_GLOBAL_OBJS)\n\
         \t@echo $(VK_GLOBAL_OBJS) > nc_runtime_objs.txt\n\
         nc_lib: {lib}\n\
         {lib}: nc_wrapper.o V{top}__ALL.a $(NC_RUNTIME_OBJS)\n\
         \t$(LINK) $(LDFLAGS) -shared -fPIC -Wl,--version-script=nc.map -Wl,--no-undefined \
         -o $@ nc_wrapper.o V{top}__ALL.a $(NC_RUNTIME_OBJS) $(LDLIBS) $(LIBS)\n"
    )
}

const VERSION_SCRIPT: &str =
    "{ global: nc_new; nc_free; nc_step; nc_outputs; nc_port_counts; local: *; };\n";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn cache_root() -> PathBuf {
    match std::env::var_os("NETCOLL_VERILATOR_CACHE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => repo_root().join("target").join("verilator-cache"),
    }
}

/// `verilator --version`, memoized per executable.
fn verilator_version(exe: &Path) -> Result<String, ToolError> {
    static INFO: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let map = INFO.get_or_init(Default::default);
    if let Some(v) = map.lock().unwrap().get(exe) {
        return Ok(v.clone());
    }
    let run = run_exe("verilator", exe, &["--version"], None)?;
    if !run.output.status.success() {
        return Err(run.failed());
    }
    let version = run.text.trim().to_string();
    map.lock()
        .unwrap()
        .insert(exe.to_path_buf(), version.clone());
    Ok(version)
}

/// An exclusive inter-process (and inter-thread) lock on `<path>`, released on drop.
struct FileLock(Option<File>);

impl FileLock {
    /// Locks `<root>/locks/<name>.lock` (lock files are never deleted: deleting them would race).
    fn acquire(root: &Path, name: &str) -> FileLock {
        // Locking is an optimization (avoids duplicate builds); correctness comes from the atomic
        // rename, so failures to lock are ignored.
        let dir = root.join("locks");
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("{name}.lock"));
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .ok();
        let f = f.and_then(|f| f.lock().ok().map(|()| f));
        FileLock(f)
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if let Some(f) = &self.0 {
            let _ = f.unlock();
        }
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), ToolError> {
    std::fs::write(path, text).map_err(|e| ToolError::io(format!("writing {}", path.display()), e))
}

/// Renames the finished `tmp` directory to `dest`. If another builder won the race, `tmp` is
/// removed (by its guard) and the existing `dest` is used.
fn publish(tmp: TempDir, dest: &Path) -> Result<(), ToolError> {
    write_file(&tmp.path().join(MARKER), "ok\n")?;
    match std::fs::rename(tmp.path(), dest) {
        Ok(()) => {
            std::mem::forget(tmp);
            Ok(())
        }
        Err(_) if dest.join(MARKER).is_file() => Ok(()),
        Err(e) => Err(ToolError::io(
            format!("renaming {} to {}", tmp.path().display(), dest.display()),
            e,
        )),
    }
}

fn make_args(dir: &Path, target: &str, extra: &[OsString]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "-C".into(),
        dir.into(),
        "-f".into(),
        "nc.mk".into(),
        "-j2".into(),
        target.into(),
        format!("OPT_FAST={OPT_FLAGS}").into(),
        format!("OPT_SLOW={OPT_FLAGS}").into(),
        format!("OPT_GLOBAL={OPT_FLAGS}").into(),
        "VM_PARALLEL_BUILDS=0".into(),
    ];
    args.extend(extra.iter().cloned());
    args
}

/// Builds (once per Verilator version) the shared runtime objects, using the freshly verilated
/// model directory `mdir` for the Makefile context. Returns the object paths.
fn ensure_runtime(root: &Path, version: &str, mdir: &Path) -> Result<Vec<PathBuf>, ToolError> {
    let mut h = Sha256::new();
    for part in [
        RECIPE_VERSION,
        version,
        OPT_FLAGS,
        &VERILATOR_FLAGS.join(" "),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let key = &hex(&h.finalize())[..24];
    let dest = root.join(format!("runtime-{key}"));
    let read_list = |dir: &Path| -> Option<Vec<PathBuf>> {
        if !dir.join(MARKER).is_file() {
            return None;
        }
        let list = std::fs::read_to_string(dir.join("nc_runtime_objs.txt")).ok()?;
        let objs: Vec<PathBuf> = list.split_whitespace().map(|o| dir.join(o)).collect();
        objs.iter().all(|o| o.is_file()).then_some(objs)
    };
    if let Some(objs) = read_list(&dest) {
        return Ok(objs);
    }
    let _lock = FileLock::acquire(root, &format!("runtime-{key}"));
    if let Some(objs) = read_list(&dest) {
        return Ok(objs);
    }
    let make = find_tool("make")?;
    let run = run_exe("make", &make, &make_args(mdir, "nc_runtime", &[]), None)?;
    if !run.output.status.success() {
        return Err(run.failed());
    }
    let list_path = mdir.join("nc_runtime_objs.txt");
    let list = std::fs::read_to_string(&list_path)
        .map_err(|e| ToolError::io(format!("reading {}", list_path.display()), e))?;
    let tmp = TempDir::new_in(root, &format!("tmp-runtime-{key}"))?;
    for o in list.split_whitespace() {
        std::fs::copy(mdir.join(o), tmp.path().join(o))
            .map_err(|e| ToolError::io(format!("copying runtime object {o}"), e))?;
    }
    write_file(&tmp.path().join("nc_runtime_objs.txt"), &list)?;
    publish(tmp, &dest)?;
    read_list(&dest).ok_or_else(|| {
        ToolError::Invalid(format!("runtime cache {} is incomplete", dest.display()))
    })
}

/// Parses the `VL_IN8(&name,msb,lsb);` style port declarations of `V<top>.h`.
/// Returns (cpp name, is_input, width, macro).
fn parse_header_ports(header: &str) -> Vec<(String, bool, usize, String)> {
    let mut ports = Vec::new();
    for line in header.lines() {
        let l = line.trim();
        let Some(rest) = l.strip_prefix("VL_") else {
            continue;
        };
        let Some(open) = rest.find("(&") else {
            continue;
        };
        let mac = &rest[..open];
        let is_input = if mac.starts_with("INOUT") {
            None
        } else if mac.starts_with("IN") {
            Some(true)
        } else if mac.starts_with("OUT") {
            Some(false)
        } else {
            continue;
        };
        let Some(close) = rest[open..].find(')') else {
            continue;
        };
        let fields: Vec<&str> = rest[open + 2..open + close].split(',').collect();
        if fields.len() < 3 {
            continue;
        }
        let name = fields[0].trim().to_string();
        let (Ok(msb), Ok(lsb)) = (
            fields[fields.len() - 2].trim().parse::<i64>(),
            fields[fields.len() - 1].trim().parse::<i64>(),
        ) else {
            continue;
        };
        let width = (msb - lsb).unsigned_abs() as usize + 1;
        match is_input {
            Some(inp) => ports.push((name, inp, width, format!("VL_{mac}"))),
            None => ports.push((name, false, 0, format!("VL_{mac}"))),
        }
    }
    ports
}

/// Checks that the module's ports (from the verilated header) are exactly `clock` + the given ones.
fn check_ports(
    header: &str,
    inputs: &[PortDesc],
    outputs: &[PortDesc],
    top: &str,
) -> Result<(), ToolError> {
    let found = parse_header_ports(header);
    if found.is_empty() {
        // Unknown header format: rely on the static_asserts of the wrapper.
        return Ok(());
    }
    let mut problems = Vec::new();
    let mut actual: HashMap<String, (bool, usize, String)> = found
        .into_iter()
        .map(|(n, i, w, m)| (n, (i, w, m)))
        .collect();
    let clock = PortDesc::new("clock", 1);
    let expected = std::iter::once((true, &clock))
        .chain(inputs.iter().map(|p| (true, p)))
        .chain(outputs.iter().map(|p| (false, p)));
    let dir = |i: bool| if i { "input" } else { "output" };
    for (is_in, p) in expected {
        match actual.remove(&verilator_cpp_name(&p.name)) {
            None => problems.push(format!(
                "{} `{}` not found in module `{top}`",
                dir(is_in),
                p.name
            )),
            Some((_, _, m)) if m.starts_with("VL_INOUT") => {
                problems.push(format!("port `{}` is an inout (unsupported)", p.name))
            }
            Some((i, w, _)) if i != is_in || w != p.width => problems.push(format!(
                "port `{}` is {} [{}] in the module but was given as {} [{}]",
                p.name,
                dir(i),
                w,
                dir(is_in),
                p.width
            )),
            Some(_) => {}
        }
    }
    let mut extra: Vec<_> = actual.into_iter().collect();
    extra.sort();
    for (n, (i, w, _)) in extra {
        problems.push(format!(
            "module port `{n}` ({} [{w}]) missing from the port lists",
            dir(i)
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ToolError::Invalid(format!(
            "ports of `{top}` do not match:\n  {}",
            problems.join("\n  ")
        )))
    }
}

/// Everything needed to build one model.
struct BuildSpec<'a> {
    verilator: &'a Path,
    verilog: &'a str,
    top: &'a str,
    inputs: &'a [PortDesc],
    outputs: &'a [PortDesc],
    wrapper: &'a str,
    lib_name: &'a str,
    version: &'a str,
    root: &'a Path,
}

fn build_into(dir: &Path, spec: &BuildSpec<'_>) -> Result<(), ToolError> {
    let BuildSpec {
        verilator,
        verilog,
        top,
        inputs,
        outputs,
        wrapper,
        lib_name,
        version,
        root,
    } = *spec;
    let vfile = format!("{top}.v");
    write_file(&dir.join(&vfile), verilog)?;
    write_file(&dir.join("nc_wrapper.cpp"), wrapper)?;
    write_file(&dir.join("nc.mk"), &makefile(top, lib_name))?;
    write_file(&dir.join("nc.map"), VERSION_SCRIPT)?;

    let mut args: Vec<OsString> = VERILATOR_FLAGS.iter().map(OsString::from).collect();
    for a in [
        "--top-module",
        top,
        "--prefix",
        &format!("V{top}"),
        "-Mdir",
        ".",
        &vfile,
    ] {
        args.push(a.into());
    }
    let run = run_exe("verilator", verilator, &args, Some(dir))?;
    if !run.output.status.success() {
        return Err(run.failed());
    }
    let header_path = dir.join(format!("V{top}.h"));
    let header = std::fs::read_to_string(&header_path)
        .map_err(|e| ToolError::io(format!("reading {}", header_path.display()), e))?;
    check_ports(&header, inputs, outputs, top)?;

    let runtime = ensure_runtime(root, version, dir)?;
    let objs: Vec<String> = runtime
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let make = find_tool("make")?;
    let extra = [OsString::from(format!(
        "NC_RUNTIME_OBJS={}",
        objs.join(" ")
    ))];
    let run = run_exe("make", &make, &make_args(dir, "nc_lib", &extra), None)?;
    if !run.output.status.success() {
        return Err(run.failed());
    }
    if !dir.join(lib_name).is_file() {
        return Err(ToolError::Invalid(format!(
            "make did not produce {}",
            dir.join(lib_name).display()
        )));
    }
    Ok(())
}

impl VerilatedModel {
    /// Verilates `verilog` (the text of one self-contained module named `top` with a 1-bit `clock`
    /// input plus exactly the given inputs and outputs), builds a shared library and loads it.
    ///
    /// Builds are cached in `<repo>/target/verilator-cache/<hash>/` keyed by the Verilog text, the
    /// generated wrapper, `verilator --version` and the port lists.
    pub fn build(
        verilog: &str,
        top: &str,
        inputs: &[PortDesc],
        outputs: &[PortDesc],
    ) -> Result<Self, ToolError> {
        validate(top, inputs, outputs)?;
        let verilator = find_tool("verilator")?;
        let version = verilator_version(&verilator)?;
        let wrapper = wrapper_source(top, inputs, outputs);

        let mut h = Sha256::new();
        for part in [
            RECIPE_VERSION,
            &version,
            &VERILATOR_FLAGS.join(" "),
            OPT_FLAGS,
            top,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        for (tag, ports) in [("in", inputs), ("out", outputs)] {
            for p in ports {
                h.update(format!("{tag} {} {}\n", p.name, p.width).as_bytes());
            }
        }
        h.update([0]);
        h.update(verilog.as_bytes());
        h.update([0]);
        h.update(wrapper.as_bytes());
        let key = hex(&h.finalize())[..32].to_string();

        let root = cache_root();
        std::fs::create_dir_all(&root)
            .map_err(|e| ToolError::io(format!("creating {}", root.display()), e))?;
        let dest = root.join(&key);
        let lib_name = format!("libnc_{top}_{}.so", &key[..16]);

        let mut reused = dest.join(MARKER).is_file();
        if !reused {
            let _lock = FileLock::acquire(&root, &key);
            reused = dest.join(MARKER).is_file();
            if !reused {
                let tmp = TempDir::new_in(&root, &format!("tmp-{key}"))?;
                let spec = BuildSpec {
                    verilator: &verilator,
                    verilog,
                    top,
                    inputs,
                    outputs,
                    wrapper: &wrapper,
                    lib_name: &lib_name,
                    version: &version,
                    root: &root,
                };
                build_into(tmp.path(), &spec)?;
                publish(tmp, &dest)?;
            }
        }
        Self::load(&dest, &lib_name, inputs.len(), outputs.len(), reused)
    }

    fn load(
        dir: &Path,
        lib_name: &str,
        n_in: usize,
        n_out: usize,
        reused: bool,
    ) -> Result<Self, ToolError> {
        let path = dir.join(lib_name);
        let load_err = |source| ToolError::Load {
            path: path.clone(),
            source,
        };
        // SAFETY: the library was built by us from generated code; its initializers only set up
        // Verilator's runtime.
        let lib = unsafe { libloading::Library::new(path.as_os_str()) }.map_err(load_err)?;
        // SAFETY: the symbol types match the `extern "C"` definitions in `wrapper_source`.
        let (new_fn, free_fn, step_fn, outputs_fn, counts_fn) = unsafe {
            (
                *lib.get::<NewFn>(b"nc_new\0").map_err(load_err)?,
                *lib.get::<FreeFn>(b"nc_free\0").map_err(load_err)?,
                *lib.get::<StepFn>(b"nc_step\0").map_err(load_err)?,
                *lib.get::<OutputsFn>(b"nc_outputs\0").map_err(load_err)?,
                *lib.get::<CountsFn>(b"nc_port_counts\0").map_err(load_err)?,
            )
        };
        let (mut ni, mut no) = (0u32, 0u32);
        // SAFETY: writes two u32 through valid pointers.
        unsafe { counts_fn(&mut ni, &mut no) };
        if (ni as usize, no as usize) != (n_in, n_out) {
            return Err(ToolError::Invalid(format!(
                "{} has {ni} inputs / {no} outputs, expected {n_in} / {n_out}",
                path.display()
            )));
        }
        // SAFETY: no arguments; returns null on failure.
        let handle = unsafe { new_fn() };
        if handle.is_null() {
            return Err(ToolError::Invalid(format!(
                "creating the model from {} failed",
                path.display()
            )));
        }
        Ok(VerilatedModel {
            handle,
            step_fn,
            outputs_fn,
            free_fn,
            n_in,
            n_out,
            build_dir: dir.to_path_buf(),
            reused,
            _lib: lib,
        })
    }

    /// One clock cycle: set all inputs (in `inputs` order, masked to their widths), set
    /// `clock = 0` and evaluate (combinational settle), read all outputs into `outputs` (in
    /// `outputs` order), then set `clock = 1` and evaluate (the rising edge).
    ///
    /// Panics if the slice lengths differ from the port lists given to [`VerilatedModel::build`].
    #[inline]
    pub fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        assert_eq!(inputs.len(), self.n_in, "wrong number of inputs");
        assert_eq!(outputs.len(), self.n_out, "wrong number of outputs");
        // SAFETY: `handle` is a live model; the slices have exactly the lengths the wrapper reads
        // and writes.
        unsafe { (self.step_fn)(self.handle, inputs.as_ptr(), outputs.as_mut_ptr()) }
    }

    /// The outputs as they are after the last [`VerilatedModel::step`]'s rising edge (for blocks
    /// whose outputs are registered, the outputs of the next cycle).
    ///
    /// Panics if `outputs` is not as long as the output list given to [`VerilatedModel::build`].
    #[inline]
    pub fn outputs_now(&mut self, outputs: &mut [u64]) {
        assert_eq!(outputs.len(), self.n_out, "wrong number of outputs");
        // SAFETY: `handle` is a live model; the slice has exactly the length the wrapper writes.
        unsafe { (self.outputs_fn)(self.handle, outputs.as_mut_ptr()) }
    }

    /// The cache directory holding this model's build.
    pub fn build_dir(&self) -> &Path {
        &self.build_dir
    }

    /// Whether [`VerilatedModel::build`] reused a finished build from the cache.
    pub fn reused_cache(&self) -> bool {
        self.reused
    }

    /// Number of inputs (excluding `clock`).
    pub fn num_inputs(&self) -> usize {
        self.n_in
    }

    /// Number of outputs.
    pub fn num_outputs(&self) -> usize {
        self.n_out
    }
}

impl Drop for VerilatedModel {
    fn drop(&mut self) {
        // SAFETY: `handle` came from `nc_new` of the still-loaded library and is freed once.
        unsafe { (self.free_fn)(self.handle) }
    }
}

impl std::fmt::Debug for VerilatedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerilatedModel")
            .field("build_dir", &self.build_dir)
            .field("inputs", &self.n_in)
            .field("outputs", &self.n_out)
            .finish()
    }
}

/// A verilated model behind the one clock convention (`netcoll_models::kit::cycle`).
pub struct VerilatorSim {
    model: VerilatedModel,
}

impl VerilatorSim {
    /// The registered block `name` of `cfg` exactly as `netcoll gen` writes it (its file and
    /// every file it requires — only those: another block's trouble is not this one's),
    /// verilated and loaded (builds are cached).
    pub fn for_block(name: &str, cfg: &netcoll_models::config::Config) -> Result<Self, String> {
        let info = netcoll_models::kit::block::block(name)
            .ok_or_else(|| format!("no block `{name}` in the registry"))?;
        let top = (info.module_name)(cfg);
        let files = netcoll_hdl::generate::block_files(cfg, name).map_err(|e| e.to_string())?;
        let text = netcoll_hdl::generate::simulation_text(&files, &top)
            .ok_or_else(|| format!("{top}.v (or a file it requires) is not generated"))?;
        Self::from_text(&text, &top, &(info.inputs)(cfg), &(info.outputs)(cfg))
    }

    /// Verilates `text` (a module `top` with these ports), e.g. a deliberately broken
    /// variant of a block's Verilog in a mutation test.
    pub fn from_text(
        text: &str,
        top: &str,
        inputs: &[netcoll_models::kit::ports::PortSpec],
        outputs: &[netcoll_models::kit::ports::PortSpec],
    ) -> Result<Self, String> {
        let desc = |v: &[netcoll_models::kit::ports::PortSpec]| -> Vec<PortDesc> {
            v.iter()
                .map(|s| PortDesc::new(s.name.clone(), s.width))
                .collect()
        };
        let model = VerilatedModel::build(text, top, &desc(inputs), &desc(outputs))
            .map_err(|e| e.to_string())?;
        Ok(VerilatorSim { model })
    }
}

impl netcoll_models::kit::cycle::ValueSim for VerilatorSim {
    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self.model.step(inputs, outputs);
    }
    fn peek_values(&mut self, outputs: &mut [u64]) {
        self.model.outputs_now(outputs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpp_names_follow_verilator_encoding() {
        assert_eq!(verilator_cpp_name("abc_1"), "abc_1");
        assert_eq!(verilator_cpp_name("a$b"), "a__024b");
        assert_eq!(verilator_cpp_name("x__y"), "x___05Fy");
        assert_eq!(verilator_cpp_name("_x"), "_x");
    }

    #[test]
    fn header_ports_are_parsed() {
        let h = "    VL_IN8(&clock,0,0);\n    VL_IN64(&w,39,0);\n    VL_OUT16(&s,8,0);\n    VL_INOUT8(&io,3,0);\n    VL_OUT(&x,31,0);\n";
        let p = parse_header_ports(h);
        assert_eq!(p.len(), 5);
        assert_eq!(p[1], ("w".into(), true, 40, "VL_IN64".into()));
        assert_eq!(p[2], ("s".into(), false, 9, "VL_OUT16".into()));
        assert_eq!(p[3].3, "VL_INOUT8");
        assert_eq!(p[4], ("x".into(), false, 32, "VL_OUT".into()));
    }

    #[test]
    fn invalid_requests_are_rejected() {
        assert!(validate("top", &[PortDesc::new("a", 0)], &[]).is_err());
        assert!(validate("top", &[PortDesc::new("a", 65)], &[]).is_err());
        assert!(validate("top", &[PortDesc::new("clock", 1)], &[]).is_err());
        assert!(validate("top", &[PortDesc::new("a", 1)], &[PortDesc::new("a", 1)]).is_err());
        assert!(validate("1top", &[], &[]).is_err());
        assert!(validate("top", &[PortDesc::new("a b", 1)], &[]).is_err());
        assert!(validate("top", &[PortDesc::new("a$b", 64)], &[PortDesc::new("c", 1)]).is_ok());
    }
}
