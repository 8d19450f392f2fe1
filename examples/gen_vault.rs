//! Writes a generated vault for benchmarks: `cargo run --release --example gen_vault -- DIR NOTES [SEED]`.

#[path = "../benches/support/vaultgen.rs"]
mod vaultgen;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(n)) = (args.next(), args.next()) else {
        eprintln!("usage: gen_vault DIR NOTES [SEED]");
        std::process::exit(2);
    };
    let Ok(n) = n.parse::<usize>() else {
        eprintln!("gen_vault: NOTES must be a number, got {n:?}");
        std::process::exit(2);
    };
    let seed = args.next().and_then(|s| s.parse().ok()).unwrap_or(42);
    let bytes = vaultgen::write_vault(std::path::Path::new(&dir), n, seed)?;
    println!("wrote {n} notes, {:.1} MB of Markdown, to {dir}", bytes as f64 / 1e6);
    Ok(())
}
