"""Outgoing email through Amazon SES (moto's SES locally, where tests read what was sent).

Under the local stack (LOCAL_MAIL_DIR set by `make run`) every email is also written as
an .eml file there and announced with one printed line, so a developer can open it.
"""
from __future__ import annotations

import os
import time
import uuid
from email.message import EmailMessage
from pathlib import Path

from chalicelib import config
from chalicelib.aws import aws_clients
from chalicelib.aws.log import logger


def sender_address() -> str:
    return os.environ.get("EMAIL_SENDER", f"noreply@{config.root_domain()}")


def send_email(to: str, subject: str, body: str) -> None:
    """Sends a plain-text email; the caller decides whether a failure matters."""
    aws_clients.ses().send_email(
        Source=sender_address(), Destination={"ToAddresses": [to]},
        Message={"Subject": {"Data": subject, "Charset": "UTF-8"},
                 "Body": {"Text": {"Data": body, "Charset": "UTF-8"}}},
        ConfigurationSetName=config.ses_configuration_set())
    logger.info("email sent", extra={"subject": subject})
    if config.local_mail_dir():
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender_address(), to, subject
        message.set_content(body)
        write_local_copy(message)


def send_message(message: EmailMessage) -> str:
    """Sends a complete MIME message (its own headers: List-Unsubscribe, ...) to its
    To address; returns SES's message id."""
    to = str(message["To"])
    if message["From"] is None:
        message["From"] = sender_address()
    response = aws_clients.ses().send_raw_email(
        Source=sender_address(), Destinations=[to],
        RawMessage={"Data": message.as_bytes()},
        ConfigurationSetName=config.ses_configuration_set())
    logger.info("email sent", extra={"subject": str(message["Subject"])})
    if config.local_mail_dir():
        write_local_copy(message)
    return response["MessageId"]


def write_local_copy(message: EmailMessage) -> Path:
    """Writes the email as <LOCAL_MAIL_DIR>/<time>-<id>.eml and prints where."""
    folder = Path(config.local_mail_dir())
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}.eml"
    # Whole or not at all: whoever watches the folder (a developer's mail viewer, the
    # e2e tests, in another process than the notifier) must never read half an email.
    partial = path.with_suffix(".part")
    partial.write_bytes(message.as_bytes())
    os.replace(partial, path)
    print(f"[mail] to {message['To']}: {message['Subject']} -> {path}", flush=True)
    return path
