//! Streamable HTTP at `/mcp`: a bearer token, Host/Origin checks, loopback unless allowed.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use anyhow::Result;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::{Scholia, Settings};

/// Serves until interrupted. With `auth`, every request needs `Authorization: Bearer TOKEN`
/// (`SCHOLIA_TOKEN`, else a token generated now and printed to stderr once).
pub async fn serve(settings: Settings, addr: SocketAddr, auth: bool) -> Result<()> {
    let token = if auth { Some(token()?) } else { None };
    let ct = tokio_util::sync::CancellationToken::new();
    // Host and Origin are checked by `local_only` (rmcp's lists hold names, not all of 127/8).
    let config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_cancellation_token(ct.child_token());
    let handler = Scholia::new(settings.clone())?;
    let service = StreamableHttpService::new(
        move || Ok(handler.new_session()),
        LocalSessionManager::default().into(),
        config,
    );
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(Arc::new(token), bearer))
        .layer(axum::middleware::from_fn_with_state(addr, local_only));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!(
        "scholia: serving MCP on http://{}/mcp for the vault {}",
        listener.local_addr()?,
        settings.config.vault.display()
    );
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            tokio::signal::ctrl_c().await.ok();
            ct.cancel();
        })
        .await?;
    Ok(())
}

fn token() -> Result<String> {
    if let Ok(token) = std::env::var("SCHOLIA_TOKEN")
        && !token.trim().is_empty()
    {
        return Ok(token.trim().to_string());
    }
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("cannot generate a token: {e}"))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    eprintln!("scholia: no SCHOLIA_TOKEN set; clients must send `Authorization: Bearer {token}`");
    Ok(token)
}

/// Compares in constant time, so the token cannot be guessed byte by byte from timings.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn bearer(State(token): State<Arc<Option<String>>>, request: Request, next: Next) -> Response {
    let Some(expected) = token.as_ref() else { return next.run(request).await };
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if given.is_some_and(|g| same(g.trim().as_bytes(), expected.as_bytes())) {
        next.run(request).await
    } else {
        (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "missing or wrong bearer token\n")
            .into_response()
    }
}

/// Whether `host` (from a Host or Origin header, IPv6 in brackets or not) is this machine:
/// `localhost`, any address of 127.0.0.0/8, or `::1`.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// The host a request names in its Host header (or its URI, over HTTP/2).
fn host_of(headers: &HeaderMap, uri: &Uri) -> Option<String> {
    match headers.get(header::HOST) {
        Some(value) => {
            let authority: axum::http::uri::Authority = value.to_str().ok()?.parse().ok()?;
            Some(authority.host().to_string())
        }
        None => uri.host().map(str::to_string),
    }
}

/// Whether an `Origin` header is absent (not a browser) or names a page served from this machine.
fn local_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else { return true };
    let uri: Option<Uri> = origin.to_str().ok().and_then(|o| o.parse().ok());
    uri.is_some_and(|u| matches!(u.scheme_str(), Some("http" | "https")) && u.host().is_some_and(is_loopback))
}

/// Refuses (403) what a web page elsewhere could send through DNS rebinding or a cross-origin
/// request: a Host that is not this machine (or the address served, with --allow-remote), an
/// Origin that is not a page on this machine.
async fn local_only(State(served): State<SocketAddr>, request: Request, next: Next) -> Response {
    let host = host_of(request.headers(), request.uri());
    let host_ok =
        host.is_some_and(|h| is_loopback(&h) || h.trim_matches(['[', ']']).parse() == Ok(served.ip()));
    if !host_ok {
        return (StatusCode::FORBIDDEN, "Forbidden: the Host header does not name this machine\n")
            .into_response();
    }
    if !local_origin(request.headers()) {
        return (
            StatusCode::FORBIDDEN,
            "Forbidden: requests from web pages are accepted only from this machine\n",
        )
            .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_all_of_127_and_the_ipv6_one() {
        for host in [
            "localhost",
            "LOCALHOST",
            "127.0.0.1",
            "127.0.0.2",
            "127.255.255.254",
            "::1",
            "[::1]",
            "::ffff:127.0.0.9",
        ] {
            assert!(is_loopback(host), "{host}");
        }
        for host in ["128.0.0.1", "10.0.0.1", "::2", "localhost.evil.example.com", "127.0.0.1.nip.io", ""] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}
