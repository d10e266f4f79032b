"""Invitations (§4.8, §4.11) and channel folders (§4.4 folder_id)."""
from __future__ import annotations

from pynamodb.attributes import (
    BooleanAttribute,
    JSONAttribute,
    TTLAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
)

from chalicelib.models.attributes import IntegerAttribute
from chalicelib.models.base import BaseModel, table_meta


class Invitation(BaseModel):
    """An emailed invitation (kind "email"), a reusable link (kind "multiuse"), or the
    emailed confirmation of an address that used a link (kind "signup", `parent_id`).

    The secret in an emailed link is stored only as `key_hash` (a reusable link's also
    as `link_key`, to be shown again); `expires_at` is null for
    invitations that never expire. Used and revoked ones keep their status for a day
    (a clear error for their link), then TTL removes them.
    """

    Meta = table_meta("invitations")
    realm_id = IntegerAttribute(hash_key=True)
    invite_id = IntegerAttribute(range_key=True)      # allocate_id(realm_id, "invite")
    kind = UnicodeAttribute()                        # "email" or "multiuse"
    email = UnicodeAttribute(null=True)              # email invitations only
    key_hash = UnicodeAttribute()
    invited_by = IntegerAttribute()
    invite_as = IntegerAttribute()                    # role
    stream_ids = JSONAttribute(default=list)
    group_ids = JSONAttribute(default=list)
    include_realm_default_subscriptions = BooleanAttribute(default=False)
    notify_referrer_on_join = BooleanAttribute(default=True)
    welcome_message_custom_text = UnicodeAttribute(null=True)
    created = IntegerAttribute()
    expires_at = TTLAttribute(null=True)
    status = UnicodeAttribute(default="active")      # "active", "used", "revoked"
    parent_id = IntegerAttribute(null=True)           # kind "signup": the link it came from
    # Once used: the account it created, and the onboarding steps done since (channels,
    # groups, welcome, referrer), so a signup cut short resumes (actions/invitations/signup.py).
    user_id = IntegerAttribute(null=True)
    onboarding_done = UnicodeSetAttribute(null=True)
    # Reusable links only: GET /invites shows a link again (the reference's `link_url`),
    # so its secret is kept with it; emailed invitations keep only the hash.
    link_key = UnicodeAttribute(null=True)


class InvitationKey(BaseModel):
    """Finds an invitation from the secret in its link (hash -> realm and id)."""

    Meta = table_meta("invitation_keys")
    key_hash = UnicodeAttribute(hash_key=True)
    realm_id = IntegerAttribute()
    invite_id = IntegerAttribute()
    expires_at = TTLAttribute(null=True)             # removed by TTL with its invitation


