"""Every organization setting PATCH /realm takes has its place in the update_dict event."""
from __future__ import annotations

import typing

from chalicelib.actions.workflows.realm_update import RealmSettingChanges
from chalicelib.api.realm import update_realm
from chalicelib.http.params import param_specs


def test_every_patch_realm_parameter_is_a_declared_event_key():
    parameters = {spec.wire_name for spec in param_specs(update_realm.__wrapped__, set())}
    declared = set(typing.get_type_hints(RealmSettingChanges))
    assert parameters, "found no parameters"
    assert parameters - declared == set()
