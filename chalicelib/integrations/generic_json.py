"""Any JSON: the payload itself, pretty-printed in a code block, in the topic "JSON" (or
the URL's). For a tool with no integration of its own, to see what it sends."""
from __future__ import annotations

import json

from chalicelib import config
from chalicelib.integrations.base import Inbound, Integration, Notice
from chalicelib.integrations.markdown import fenced


def translate(event: Inbound) -> list[Notice]:
    text = json.dumps(event.payload, indent=2, sort_keys=True, ensure_ascii=False)
    return [Notice("JSON", fenced(text, "json", config.MAX_MESSAGE_LENGTH - 100))]


INTEGRATION = Integration(name="json", display_name="JSON formatter", translate=translate)
