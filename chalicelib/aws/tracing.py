"""X-Ray tracing (powertools Tracer) for every function: a Chalice middleware for the
apps (the API's and the long-poll's) and a decorator for the other entry points.

Creating the Tracer patches botocore (and the HTTP clients) unless tracing is disabled,
so each DynamoDB, SQS, SES, SNS, S3 or webhook call of a traced invocation is a
subsegment. Tracing is off outside Lambda and wherever `POWERTOOLS_TRACE_DISABLED` is
true (tests, the local stack). The functions' `Tracing: Active` (infra/template.json)
makes Lambda open each invocation's segment.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools import Tracer

from chalicelib.aws.botocore_loader import share_loader
from chalicelib.aws.xray_sampling import lazy_xray_clients

share_loader()   # before the X-Ray SDK's sessions, made when the Tracer is
with lazy_xray_clients():   # the SDK's sampler clients, unused on Lambda, made if used
    tracer = Tracer(service="teamchat")
R = TypeVar("R")


def traced(handler: Callable[[Any, Any], R]) -> Callable[[Any, Any], R]:
    """A Lambda entry point (chalicelib/handlers/) run inside powertools'
    `capture_lambda_handler`: a `## <function name>` subsegment with ColdStart and
    Service, an exception recorded as its error; responses are not recorded."""

    @functools.wraps(handler)
    def invoke(event: Any, context: Any) -> R:
        def run(raw: Any, lambda_context: Any) -> R:
            return handler(raw, lambda_context)

        run.__name__ = str(getattr(context, "function_name", None) or handler.__name__)
        result: R = tracer.capture_lambda_handler(run, capture_response=False)(event, context)
        return result

    return invoke


def traced_invocation(event: Any, get_response: Callable[[Any], Any]) -> Any:
    """`@app.middleware("http")`: runs the invocation inside powertools'
    `capture_lambda_handler`, a `## <function name>` subsegment annotated with ColdStart
    and Service, an exception recorded as its error. Chalice's event handlers take one
    argument, powertools' decorator an (event, context) handler: this adapts the two.
    Responses are not recorded (they hold messages)."""
    # Here, not at the top: the queue and stream functions import this module but not
    # Chalice, and loading it would cost their cold start.
    from chalice.app import Request

    if isinstance(event, Request):
        raw, context = event.to_original_event(), event.lambda_context
    elif hasattr(event, "to_dict"):
        raw, context = event.to_dict(), event.context
    else:   # a REST event Chalice could not make a request of (answered as an error)
        raw, context = event, None

    def handler(_raw: Any, _context: Any) -> Any:
        return get_response(event)

    handler.__name__ = str(getattr(context, "function_name", None) or "handler")
    return tracer.capture_lambda_handler(handler, capture_response=False)(raw, context)
