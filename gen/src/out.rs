//! Standard output and errors of the command line.
//!
//! Every line goes through [`Out`], so that a write error is a value instead of a panic: a
//! closed pipe (`netcoll gen | head -1`) ends the command quietly with status 0, any other
//! write error is reported with status 2.

use std::io::{self, Write};

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The command line is wrong (exit 2).
    #[error("{0}")]
    Usage(String),
    /// An input file is wrong or cannot be read, or an output cannot be written (exit 2).
    #[error("{0}")]
    Input(String),
    /// Generation or a tool failed (exit 1).
    #[error("{0}")]
    Failed(String),
    /// Writing the output failed.
    #[error("writing the output: {0}")]
    Write(#[from] io::Error),
}

impl CliError {
    /// Prints the error (unless the reader has gone) and gives the exit status.
    pub fn report(&self) -> i32 {
        match self {
            CliError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            CliError::Failed(m) => {
                eprintln!("netcoll: {m}");
                1
            }
            e => {
                eprintln!("netcoll: {e}");
                2
            }
        }
    }
}

/// Buffered standard output whose errors are returned, not panicked on.
pub struct Out {
    w: io::BufWriter<io::Stdout>,
}

impl Out {
    pub fn stdout() -> Out {
        Out {
            w: io::BufWriter::new(io::stdout()),
        }
    }

    /// One line.
    pub fn line(&mut self, s: &str) -> Result<(), CliError> {
        writeln!(self.w, "{s}")?;
        Ok(())
    }

    /// Text that ends with its own newline (a table).
    pub fn text(&mut self, s: &str) -> Result<(), CliError> {
        self.w.write_all(s.as_bytes())?;
        Ok(())
    }

    /// Flushes now, so that streamed events are seen as they happen.
    pub fn flush(&mut self) -> Result<(), CliError> {
        self.w.flush()?;
        Ok(())
    }
}
