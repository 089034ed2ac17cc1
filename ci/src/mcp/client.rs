//! rmcp's MCP client, on the test kit's blocking HTTP client (ureq) instead of reqwest: the SDK
//! does the protocol (the `initialize` handshake or `server/discover`, the version header, the
//! per-request `_meta` and the `Mcp-Method`/`Mcp-Name` headers of `2026-07-28`), and this
//! transport keeps every raw answer, so each one is counted as a call and checked for the
//! canaries like the REST answers.
//!
//! `answers serve` answers `/mcp` statelessly and in JSON (no SSE stream, no session), so the
//! transport refuses SSE and session deletion, as a server without them would.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use ::http::{HeaderName, HeaderValue};
use futures_core::stream::BoxStream;
use phi_testkit::http::{self as kit, HttpError, Method, Request};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ProtocolVersion, ServerJsonRpcMessage};
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, SseError, StreamableHttpClient,
    StreamableHttpClientTransportConfig, StreamableHttpError, StreamableHttpPostResponse,
};
use serde_json::Value;
use sse_stream::Sse;

/// One POST to `/mcp` and its answer.
#[derive(Debug, Clone)]
pub(crate) struct Exchange {
    /// The HTTP status.
    pub(crate) status: u16,
    /// The body, as text (for the canary check).
    pub(crate) text: String,
    /// The body, if it is JSON.
    pub(crate) json: Option<Value>,
}

/// The transport: POSTs through [`phi_testkit::http`], every answer kept.
#[derive(Clone)]
pub(crate) struct KitHttp {
    addr: SocketAddr,
    exchanges: Arc<Mutex<Vec<Exchange>>>,
}

type Failure = StreamableHttpError<HttpError>;

impl KitHttp {
    fn new(addr: SocketAddr) -> KitHttp {
        KitHttp {
            addr,
            exchanges: Arc::default(),
        }
    }

    /// The exchanges since the last call.
    pub(crate) fn take(&self) -> Vec<Exchange> {
        std::mem::take(
            &mut *self
                .exchanges
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The path and query of `uri` (the transport is given the whole URL).
    fn target(&self, uri: &str) -> String {
        let authority = format!("http://{}", self.addr);
        uri.strip_prefix(&authority).unwrap_or(uri).to_owned()
    }
}

impl StreamableHttpClient for KitHttp {
    type Error = HttpError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        let body = serde_json::to_vec(&message)?;
        let target = self.target(&uri);
        let mut headers: Vec<(String, String)> = custom_headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        headers.push((
            "Accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ));
        if let Some(session) = session_id {
            headers.push(("Mcp-Session-Id".to_owned(), session.to_string()));
        }
        let addr = self.addr;
        let answer = tokio::task::spawn_blocking(move || {
            let headers: Vec<(&str, &str)> = headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            kit::send(
                addr,
                &Request {
                    method: Method::Post,
                    target: &target,
                    bearer: auth_header.as_deref(),
                    json_body: Some(&body),
                    headers: &headers,
                },
            )
        })
        .await?
        .map_err(StreamableHttpError::Client)?;
        self.exchanges
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Exchange {
                status: answer.status,
                text: answer.text(),
                json: answer.json(),
            });
        let json = answer
            .content_type
            .as_deref()
            .is_some_and(|ct| ct.starts_with("application/json"));
        match answer.status {
            202 | 204 => Ok(StreamableHttpPostResponse::Accepted),
            401 => Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                answer
                    .header("www-authenticate")
                    .unwrap_or_default()
                    .to_owned(),
            ))),
            200..=299 if answer.body.is_empty() => Ok(StreamableHttpPostResponse::Accepted),
            // A JSON-RPC error may come with a 4xx status: the SDK surfaces it as an MCP error.
            _ if json => {
                let message: ServerJsonRpcMessage = serde_json::from_slice(&answer.body)?;
                let session = answer.header("mcp-session-id").map(str::to_owned);
                Ok(StreamableHttpPostResponse::Json(message, session))
            }
            status if !(200..=299).contains(&status) => Err(StreamableHttpError::HttpStatus(
                HttpStatusError::new(status, None),
            )),
            _ => Err(StreamableHttpError::UnexpectedContentType(
                answer.content_type,
            )),
        }
    }

    async fn delete_session(
        &self,
        _uri: Arc<str>,
        _session_id: Arc<str>,
        _auth_header: Option<String>,
        _custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Failure> {
        Err(StreamableHttpError::ServerDoesNotSupportDeleteSession)
    }

    async fn get_stream(
        &self,
        _uri: Arc<str>,
        _session_id: Option<Arc<str>>,
        _last_event_id: Option<String>,
        _auth_header: Option<String>,
        _custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Failure> {
        Err(StreamableHttpError::ServerDoesNotSupportSse)
    }
}

/// The protocol generation a client speaks.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Generation {
    /// `2025-11-25`: the `initialize` handshake, then the version in a header.
    Handshake,
    /// `2026-07-28`: `server/discover`, then the version, the method and the tool's name in
    /// headers and `_meta` on every request.
    Discovery,
}

/// A client, connected or refused, and its transport's log.
pub(crate) struct Client {
    pub(crate) http: KitHttp,
    pub(crate) service: Result<RunningService<RoleClient, ()>, ClientInitializeError>,
}

/// Connects to `path` on the service, with `bearer` if given, in `generation`.
pub(crate) async fn connect(
    addr: SocketAddr,
    path: &str,
    bearer: Option<&str>,
    generation: Generation,
) -> Client {
    let http = KitHttp::new(addr);
    let mut config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}{path}"));
    if let Some(token) = bearer {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::with_client(http.clone(), config);
    let lifecycle = match generation {
        Generation::Handshake => ClientLifecycleMode::Initialize,
        Generation::Discovery => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let service = ().serve_with_lifecycle(transport, lifecycle).await;
    Client { http, service }
}

impl Client {
    /// Closes the client and returns the exchanges not yet taken.
    pub(crate) async fn close(self) -> Vec<Exchange> {
        if let Ok(service) = self.service {
            let _ = service.cancel().await;
        }
        self.http.take()
    }
}
