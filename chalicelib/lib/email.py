"""Outgoing email through Amazon SES (moto's SES locally, where tests read what was sent)."""
from __future__ import annotations

import os

from chalicelib import config
from chalicelib.lib import aws_clients
from chalicelib.lib.log import logger


def sender_address() -> str:
    return os.environ.get("EMAIL_SENDER", f"noreply@{config.root_domain()}")


def send_email(to: str, subject: str, body: str) -> None:
    """Sends a plain-text email; the caller decides whether a failure matters."""
    aws_clients.ses().send_email(
        Source=sender_address(), Destination={"ToAddresses": [to]},
        Message={"Subject": {"Data": subject, "Charset": "UTF-8"},
                 "Body": {"Text": {"Data": body, "Charset": "UTF-8"}}})
    logger.info("email sent", extra={"subject": subject})
