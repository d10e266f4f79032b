"""X-Ray tracing (powertools Tracer) for every function: one Chalice middleware.

Creating the Tracer patches botocore (and the HTTP clients) unless tracing is disabled,
so each DynamoDB, SQS, SES, SNS, S3 or webhook call of a traced invocation is a
subsegment. Tracing is off outside Lambda and wherever `POWERTOOLS_TRACE_DISABLED` is
true (tests, the local stack). The functions' `Tracing: Active` (infra/template.json)
makes Lambda open each invocation's segment.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Tracer
from chalice.app import Request

tracer = Tracer(service="teamchat")


def traced_invocation(event: Any, get_response: Callable[[Any], Any]) -> Any:
    """`@app.middleware("all")`: runs the invocation inside powertools'
    `capture_lambda_handler`, a `## <function name>` subsegment annotated with ColdStart
    and Service, an exception recorded as its error. Chalice's event handlers take one
    argument, powertools' decorator an (event, context) handler: this adapts the two.
    Responses are not recorded (they hold messages)."""
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
