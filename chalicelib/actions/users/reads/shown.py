"""Users as a request asks to see them: by id or email (one route), and with the
reference's defaults for Gravatar URLs and profile data."""
from __future__ import annotations

from chalicelib.actions.users.reads.access import INACCESSIBLE_AVATAR_URL, UserDict
from chalicelib.actions.users.reads.email_access import shown_delivery_email
from chalicelib.actions.users.reads.users import access_user_by_id
from chalicelib.core.errors import UNKNOWN_USER, ApiError
from chalicelib.core.principal import Principal
from chalicelib.models.realms import Realm
from chalicelib.models.users import User, get_user_by_email
from chalicelib.rules.avatars import for_client
from chalicelib.rules.email_visibility import stand_in_email, stand_in_user_id


def access_user_by_id_or_email(caller: Principal, id_or_email: str) -> User:
    """GET /users/{user_id} and GET /users/{email} share one route: digits are an id."""
    if id_or_email.isascii() and id_or_email.isdigit() and len(id_or_email) < 16:
        return access_user_by_id(caller, int(id_or_email))
    return access_user_by_email(caller, id_or_email)


def access_user_by_email(caller: Principal, email: str) -> User:
    """The person an address names for this caller: by their stand-in (whatever their
    setting now), or by their real address if the caller may see it; then the usual
    access check. Anything else is "No such person in this organization.", as for an unknown address."""
    named = stand_in_user_id(email)
    if named is not None:
        realm = Realm.get_or_none(caller.realm_id)
        if realm is not None and email.strip().lower() == stand_in_email(
                named, realm.subdomain).lower():
            return access_user_by_id(caller, named)
    user = get_user_by_email(caller.realm_id, email)
    if user is None or shown_delivery_email(caller, user) is None:
        raise ApiError(UNKNOWN_USER)
    return access_user_by_id(caller, user.user_id)


def as_requested(shown: UserDict, client_gravatar: bool,
                 include_custom_profile_fields: bool) -> UserDict:
    """A user record as GET /users asked for it: Gravatar URLs left to the client
    (the reference's default since level 92), profile data only when asked."""
    data: UserDict = {**shown}
    if shown["avatar_url"] != INACCESSIBLE_AVATAR_URL:   # the "Unknown user" keeps its picture
        data["avatar_url"] = for_client(shown["avatar_url"], client_gravatar)
    if not include_custom_profile_fields:
        data.pop("profile_data", None)
    return data
