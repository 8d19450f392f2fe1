//! Parse throughput benchmark (placeholder until the parser lands).

fn main() {}
