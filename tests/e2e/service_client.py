"""The official `zulip` client, adapted in ONE place to this API's naming rule.

The spec names version fields `service_*` where the client reads `zulip_*`; this
subclass copies them on the client side. The server is not bent to the client.
"""
from __future__ import annotations

from typing import Any

import zulip

BRANDED = {"service_version": "zulip_version", "service_feature_level": "zulip_feature_level",
           "service_merge_base": "zulip_merge_base"}


class ServiceClient(zulip.Client):
    def get_server_settings(self) -> dict[str, Any]:
        settings = super().get_server_settings()
        for ours, theirs in BRANDED.items():
            if ours in settings:
                settings.setdefault(theirs, settings[ours])
        return settings
