"""SES bounce and complaint events (configuration set → SNS topic → this handler): an
address that bounced permanently or complained gets no more notification email."""
from __future__ import annotations

import json
import time
from typing import Any

from chalicelib.aws.log import logger
from chalicelib.models.notifications import (
    SUPPRESSED_ITEM,
    MailSuppression,
    address_key,
)


def suppressed_addresses(notification: dict[str, Any]) -> list[tuple[str, str]]:
    """(address, reason) pairs a SES event asks to stop mailing (pure)."""
    kind = notification.get("eventType") or notification.get("notificationType")
    if kind == "Bounce":
        bounce = notification.get("bounce") or {}
        if bounce.get("bounceType") != "Permanent":
            return []   # transient: SES retries, the address may recover
        return [(r["emailAddress"], "bounce") for r in bounce.get("bouncedRecipients", [])
                if r.get("emailAddress")]
    if kind == "Complaint":
        complaint = notification.get("complaint") or {}
        return [(r["emailAddress"], "complaint")
                for r in complaint.get("complainedRecipients", []) if r.get("emailAddress")]
    return []


def record_mail_event(message: str) -> int:
    """Records the suppressions of one SNS message from SES; returns how many."""
    try:
        notification = json.loads(message)
    except ValueError:
        logger.warning("mail event is not JSON")
        return 0
    pairs = suppressed_addresses(notification)
    now_ms = int(time.time() * 1000)
    for address, reason in pairs:
        MailSuppression(address_key(address), SUPPRESSED_ITEM, reason=reason,
                        at_ms=now_ms).save()
    if pairs:
        logger.info("addresses suppressed", extra={"count": len(pairs)})
    return len(pairs)
