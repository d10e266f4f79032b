"""DynamoDB and SQS requests signed and sent directly, not through botocore's pipeline.

botocore sends every request through machinery built for all of AWS's protocols: an
AWSRequest, a dozen events, case-insensitive header objects, the signer's canonical
forms rebuilt from the URL, urllib3's pool and retry objects, then the answer back
through the same layers. For a DynamoDB or SQS call (a JSON POST to `/`) that was three
quarters of the call's CPU (0.6 of 0.8 ms on the development machine), and such calls
are most of what the API and the fan-out do. Here the request botocore has prepared
(its body, target and endpoint, after its parameter, endpoint and before-call events)
is signed with Signature Version 4 and sent over a keep-alive connection of the calling
thread, and the answer is read by the client's own parser (aws/item_answers.py for
DynamoDB's item answers). The events around the call (the read deadline, after-call
handlers, the X-Ray patch and the local stage meter on `_make_api_call`) run as before.

Whatever does not fit goes through botocore as it always did: another protocol or
signature, a proxy, an endpoint with a path, query or user part, a request with a query
string, a connection that fails (botocore
sends the request again with its own retries), and an answer botocore's retry rules
would retry (throttling, server errors, a damaged body): the answer is handed to those
rules, which wait and send again. Other error answers are parsed as botocore parses
them and raised by the client as botocore raises them.
`tests/unit/test_direct_requests.py` holds both ways to the same bytes and results,
`tests/unit/test_direct_signatures.py` to the same signature as botocore's SigV4Auth.
DIRECT_AWS_REQUESTS=off in a function's environment turns the direct path off.
"""
from __future__ import annotations

import hashlib
import hmac
import http.client
import ssl
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from botocore.session import Session
from pynamodb.connection.base import Connection as PynamoConnection

from chalicelib import config

DIRECT_SERVICES = ("dynamodb", "sqs")
# Headers botocore's Signature Version 4 leaves unsigned (botocore.auth).
_UNSIGNED = frozenset(("baggage", "connection", "expect", "keep-alive",
                       "proxy-authenticate", "proxy-authorization", "te", "traceparent",
                       "tracestate", "trailer", "transfer-encoding", "upgrade",
                       "user-agent", "x-amzn-trace-id"))
_DEFAULT_PORTS = {"http": 80, "https": 443}


class DirectResponse:
    """What botocore's parsers, retry rules and after-call handlers read of an answer."""

    def __init__(self, status_code: int, headers: dict[str, str], content: bytes) -> None:
        self.status_code, self.headers, self.content = status_code, headers, content
        self.raw = None

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")


class _Origin:
    """Where a client's requests go and how they are signed: fixed per client."""

    def __init__(self, url: str, region: str, service: str) -> None:
        parts = urlsplit(url)
        self.scheme = parts.scheme
        self.hostname = parts.hostname or ""
        self.port = parts.port or _DEFAULT_PORTS.get(parts.scheme, 0)
        host = self.hostname if ":" not in self.hostname else f"[{self.hostname}]"
        # As botocore signs it (and as it is sent): the port only when not the default.
        self.host = host if parts.port in (None, _DEFAULT_PORTS.get(parts.scheme)) \
            else f"{host}:{parts.port}"
        self.region, self.service = region, service
        self.scope_tail = f"/{region}/{service}/aws4_request"


class _Connections(threading.local):
    def __init__(self) -> None:
        self.open: dict[tuple[str, str, int, float], http.client.HTTPConnection] = {}


_connections = _Connections()
_signing_keys: dict[tuple[str, str, str, str], bytes] = {}


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    """The day's derived key (four HMACs), kept: it changes once a day."""
    cache_key = (secret, date, region, service)
    key = _signing_keys.get(cache_key)
    if key is None:
        key = hmac.new(f"AWS4{secret}".encode(), date.encode(), hashlib.sha256).digest()
        for part in (region, service, "aws4_request"):
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        if len(_signing_keys) > 16:   # rotated credentials, days gone by
            _signing_keys.clear()
        _signing_keys[cache_key] = key
    return key


def signed_headers(origin: _Origin, headers: dict[str, str], body: bytes,
                   credentials: Any, now: float) -> dict[str, str]:
    """The request's headers with X-Amz-Date, the session token and Authorization, as
    botocore's SigV4Auth would add them (every header signed but its unsigned list)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    out = dict(headers)
    out["X-Amz-Date"] = stamp
    if credentials.token:
        out["X-Amz-Security-Token"] = credentials.token
    signed = {name.lower(): " ".join(value.split()) for name, value in out.items()
              if name.lower() not in _UNSIGNED}
    signed.setdefault("host", origin.host)
    names = sorted(signed)
    canonical = "\n".join((
        "POST", "/", "", *(f"{name}:{signed[name]}" for name in names), "",
        ";".join(names), hashlib.sha256(body).hexdigest()))
    scope = stamp[:8] + origin.scope_tail
    to_sign = "\n".join(("AWS4-HMAC-SHA256", stamp, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()))
    key = signing_key(credentials.secret_key, stamp[:8], origin.region, origin.service)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    out["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={credentials.access_key}/{scope}, "
                            f"SignedHeaders={';'.join(names)}, Signature={signature}")
    return out


class _DirectClient:
    """Mixed into the session's DynamoDB and SQS client classes, before BaseClient."""

    # BaseClient's (private to botocore, so not in its stubs)
    _request_signer: Any
    _endpoint: Any
    meta: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._direct_origins: dict[tuple[str, str, str], _Origin | None] = {}
        self._direct_before_send: dict[str, tuple[Any, ...]] = {}
        self._direct_parsers: dict[str, Any] = {}
        self._direct_tls: ssl.SSLContext | None = None

    def _make_request(self, operation_model: Any, request_dict: dict[str, Any],
                      request_context: dict[str, Any]) -> Any:
        # A mixin: the next class is BaseClient.
        botocore_request: Callable[..., Any] = super()._make_request  # type: ignore[misc]
        origin = self._direct_origin(request_dict, request_context)
        body = request_dict.get("body")
        if origin is None or not isinstance(body, bytes) or self._intercepted(operation_model):
            return botocore_request(operation_model, request_dict, request_context)
        credentials = self._request_signer._credentials
        frozen = credentials.get_frozen_credentials() if credentials is not None else None
        if frozen is None or not frozen.access_key:
            return botocore_request(operation_model, request_dict, request_context)
        headers = signed_headers(origin, {k: v for k, v in request_dict["headers"].items()
                                          if isinstance(v, str)}, body, frozen, time.time())
        try:
            answer = _send(origin, headers, body, self._direct_timeout(), self._tls)
        except (OSError, http.client.HTTPException):
            # Sent again by botocore, with its retries and its exceptions.
            return botocore_request(operation_model, request_dict, request_context)
        crc = answer.headers.get("x-amz-crc32")
        if crc is not None and crc.isdigit() and \
                zlib.crc32(answer.content) & 0xFFFFFFFF != int(crc):
            return botocore_request(operation_model, request_dict, request_context)
        parsed = self._parse_direct(answer, operation_model, request_context)
        if answer.status_code >= 300:
            endpoint = self._endpoint
            endpoint._update_retries_context(request_context, 1)
            if endpoint._needs_retry(1, operation_model, request_dict, (answer, parsed)):
                # botocore's rules waited as they would have; botocore sends it again.
                return botocore_request(operation_model, request_dict, request_context)
        return answer, parsed

    def _direct_origin(self, request_dict: dict[str, Any],
                       request_context: dict[str, Any]) -> _Origin | None:
        """Where the request goes and how it is signed, or None if it is not a JSON POST
        to `/` signed with Signature Version 4 (and without a proxy)."""
        if request_dict.get("method") != "POST" or request_dict.get("url_path") != "/" \
                or request_dict.get("query_string") \
                or request_context.get("auth_type") not in (None, "v4"):
            return None
        signing = request_context.get("signing") or {}
        signer = self._request_signer
        region = signing.get("region", signer.region_name)
        service = signing.get("signing_name", signer.signing_name)
        url = request_dict["url"]
        cache_key = (url, region, service)
        if cache_key not in self._direct_origins:
            proxies = getattr(self._endpoint.http_session,
                              "_proxy_config", None)
            usable = signer.signature_version == "v4" and _bare_origin(url) \
                and not (set(signing) - {"region", "signing_name", "disableDoubleEncoding"}) \
                and not (proxies is not None and proxies.proxy_url_for(url))
            self._direct_origins[cache_key] = _Origin(url, region, service) if usable else None
        return self._direct_origins[cache_key]

    def _intercepted(self, operation_model: Any) -> bool:
        """Whether a before-send handler may answer instead of the network (moto's
        in-process mock, while it is on): then botocore sends it, which asks them."""
        name = operation_model.name
        handlers = self._direct_before_send.get(name)
        if handlers is None:
            events = self.meta.events
            emitter = getattr(events, "_emitter", events)
            service_id = operation_model.service_model.service_id.hyphenize()
            handlers = self._direct_before_send[name] = tuple(
                emitter._handlers.prefix_search(f"before-send.{service_id}.{name}"))
        return any(_may_answer(handler) for handler in handlers)

    def _direct_timeout(self) -> float:
        # One timeout for connecting and reading: the longer (a long poll waits 20 s).
        config = self.meta.config
        return float(max(config.connect_timeout or 60, config.read_timeout or 60))

    def _tls(self) -> ssl.SSLContext:
        if self._direct_tls is None:
            verify = getattr(self._endpoint.http_session,
                             "_verify", True)
            self._direct_tls = ssl.create_default_context(
                cafile=verify if isinstance(verify, str) else _default_ca_bundle())
        return self._direct_tls

    def _parse_direct(self, answer: DirectResponse, operation_model: Any,
                      request_context: dict[str, Any]) -> dict[str, Any]:
        """The answer as botocore's endpoint parses it (the client's own parsers)."""
        endpoint = self._endpoint
        protocol = operation_model.service_model.resolved_protocol
        parser = self._direct_parsers.get(protocol)
        if parser is None:
            parser = self._direct_parsers[protocol] = \
                endpoint._response_parser_factory.create_parser(protocol)
        response_dict = {"headers": answer.headers, "status_code": answer.status_code,
                         "body": answer.content, "context": request_context}
        parsed: dict[str, Any] = parser.parse(response_dict, operation_model.output_shape)
        if answer.status_code >= 300:
            endpoint._add_modeled_error_fields(response_dict, parsed, operation_model,
                                               parser)
        metadata = parsed.get("ResponseMetadata")
        if metadata is not None:
            metadata["RetryAttempts"] = 0
        return parsed


def _send(origin: _Origin, headers: dict[str, str], body: bytes, timeout: float,
          tls: Callable[[], ssl.SSLContext]) -> DirectResponse:
    """One request over this thread's connection to the origin (opened if need be)."""
    key = (origin.scheme, origin.hostname, origin.port, timeout)
    connection = _connections.open.get(key)
    if connection is None:
        connection = _connections.open[key] = \
            http.client.HTTPConnection(origin.hostname, origin.port, timeout=timeout) \
            if origin.scheme == "http" else \
            http.client.HTTPSConnection(origin.hostname, origin.port, timeout=timeout,
                                        context=tls())
    try:
        connection.request("POST", "/", body, {**headers, "Host": origin.host})
        response = connection.getresponse()
        content = response.read()
    except BaseException:
        connection.close()
        _connections.open.pop(key, None)
        raise
    if response.will_close:
        connection.close()
        _connections.open.pop(key, None)
    return DirectResponse(response.status, {name.lower(): value for name, value
                                            in response.getheaders()}, content)


def _bare_origin(url: str) -> bool:
    """Whether the URL is scheme://host[:port][/], all this module signs and sends (an
    endpoint's query, for one, botocore sends and signs)."""
    parts = urlsplit(url)
    return parts.scheme in _DEFAULT_PORTS and parts.path in ("", "/") \
        and not (parts.query or parts.fragment or parts.username or parts.password)


def _may_answer(handler: Any) -> bool:
    """PynamoDB's connections add their `extra_headers` before sending (none here); moto's
    mock answers while it is enabled; any other handler might answer."""
    owner = getattr(handler, "__self__", None)
    if isinstance(owner, PynamoConnection) and \
            getattr(handler, "__func__", None) is PynamoConnection._before_send:
        return owner._extra_headers is not None
    return bool(getattr(handler, "enabled", True))


def _default_ca_bundle() -> str | None:
    from botocore.httpsession import get_cert_path

    path: str | None = get_cert_path(True)
    return path


def _add_mixin(**event: Any) -> None:
    """creating-client-class: `base_classes` is the list the class is made of."""
    event["base_classes"].insert(0, _DirectClient)


def install_direct_requests(session: Session) -> None:
    """The DynamoDB and SQS clients this session creates from now on send directly,
    unless DIRECT_AWS_REQUESTS is off."""
    if not config.direct_aws_requests():
        return
    for service in DIRECT_SERVICES:
        session.register(f"creating-client-class.{service}", _add_mixin,
                         unique_id=f"teamchat-direct-requests-{service}")
