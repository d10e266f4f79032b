"""What GET /server_settings tells an unauthenticated client (§4.22)."""
from __future__ import annotations

from typing import NotRequired, TypedDict

from chalicelib import config
from chalicelib.core.errors import ApiError
from chalicelib.core.feature_levels import advertised_level
from chalicelib.models.realms import get_realm_by_subdomain
from chalicelib.rules.markdown import render_markdown


class ExternalAuthenticationMethod(TypedDict):
    name: str
    display_name: str
    display_icon: str | None
    login_url: str
    signup_url: str


class ServerSettingsResult(TypedDict):
    """The realm_* fields only on an organization's own address."""

    authentication_methods: dict[str, bool]
    external_authentication_methods: list[ExternalAuthenticationMethod]
    service_feature_level: int
    service_version: str
    service_merge_base: str
    push_notifications_enabled: bool
    is_incompatible: bool
    email_auth_enabled: bool
    require_email_format_usernames: bool
    # Extension, only with feature_levels.EXTENSIONS_PARAMETER: where the push channel
    # is served (None when it is not).
    event_queue_websocket_url: NotRequired[str | None]
    realm_uri: NotRequired[str]
    realm_url: NotRequired[str]
    realm_name: NotRequired[str]
    realm_icon: NotRequired[str]
    realm_description: NotRequired[str]
    realm_web_public_access_enabled: NotRequired[bool]


def subdomain_of(host: str) -> str | None:
    """The realm subdomain named by a Host header, or None on the root domain."""
    hostname = host.split(":", maxsplit=1)[0].strip(".").lower()
    root = config.root_domain().lower()
    if hostname == root or not hostname.endswith("." + root):
        return None
    subdomain = hostname[: -len(root) - 1]
    return subdomain if subdomain and "." not in subdomain else None


# Email address and password (POST /fetch_api_key) is the one way to sign in.
SIGN_IN_WITH_PASSWORD = True


def server_settings(host: str, scheme: str, include_extensions: bool = False
                    ) -> ServerSettingsResult:
    settings: ServerSettingsResult = {
        "authentication_methods": {
            "password": SIGN_IN_WITH_PASSWORD, "dev": False, "email": True, "ldap": False,
            "remoteuser": False, "github": False, "azuread": False, "gitlab": False,
            "apple": False, "google": False, "saml": False, "openid connect": False,
        },
        "external_authentication_methods": [],
        "service_feature_level": advertised_level(),
        "service_version": config.SERVICE_VERSION,
        "service_merge_base": config.SERVICE_MERGE_BASE,
        "push_notifications_enabled": False,
        "is_incompatible": False,
        "email_auth_enabled": True,
        "require_email_format_usernames": True,
    }
    if include_extensions:
        # Extension: where the push channel is served (None when it is not).
        settings["event_queue_websocket_url"] = config.websocket_url()
    subdomain = subdomain_of(host)
    realm = get_realm_by_subdomain(subdomain) if subdomain else None
    if subdomain and realm is None:
        # As the reference: a subdomain no organization has is an error, the root
        # domain is not.
        raise ApiError("There is no organization at this subdomain.")
    if realm is not None and not realm.deactivated:
        url = f"{scheme}://{host}"
        settings.update({
            "realm_uri": url,
            "realm_url": url,
            "realm_name": realm.name,
            "realm_icon": f"{url}/static/images/realm-icon.png",
            "realm_description": render_markdown(realm.description),
            "realm_web_public_access_enabled": False,
        })
    return settings
