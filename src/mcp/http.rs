//! Streamable HTTP at `/mcp`: a bearer token, Host/Origin checks, loopback unless allowed.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Result;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
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
    let mut hosts = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    if !addr.ip().is_loopback() {
        hosts.push(addr.ip().to_string());
    }
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*"])
        .with_cancellation_token(ct.child_token());
    let handler = Scholia::new(settings.clone())?;
    let service = StreamableHttpService::new(
        move || Ok(handler.new_session()),
        LocalSessionManager::default().into(),
        config,
    );
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(Arc::new(token), bearer));
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
